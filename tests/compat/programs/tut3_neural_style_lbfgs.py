"""PyTorch tutorial "Neural Transfer Using PyTorch" (advanced_source/neural_style_tutorial.py)
end to end, with a small randomly initialised VGG-like `features` stack instead of the
pretrained vgg19 and generated 16x16 images instead of the photos: ContentLoss and StyleLoss
modules that store self.loss and return their input, gram_matrix, the Normalization module
(torch.tensor(mean).view(-1, 1, 1)), get_style_model_and_losses copying the cnn with
copy.deepcopy, walking cnn.children() and renaming layers (conv_i / relu_i / pool_i, nn.ReLU
(inplace=False)), model.add_module, trimming with model[:(i + 1)]; get_input_optimizer with
optim.LBFGS([input_img]) and run_style_transfer's closure (clamp_ under torch.no_grad(),
style_score += sl.loss, run[0] counter) driven by optimizer.step(closure)."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

device = torch.device("cpu")
torch.set_default_device(device)
imsize = 16


class ContentLoss(nn.Module):

    def __init__(self, target,):
        super(ContentLoss, self).__init__()
        # we 'detach' the target content from the tree used
        # to dynamically compute the gradient: this is a stated value,
        # not a variable. Otherwise the forward method of the criterion
        # will throw an error.
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()  # a=batch size(=1)
    # b=number of feature maps
    # (c,d)=dimensions of a f. map (N=c*d)

    features = input.view(a * b, c * d)  # resize F_XL into \hat F_XL

    G = torch.mm(features, features.t())  # compute the gram product

    # we 'normalize' the values of the gram matrix
    # by dividing by the number of element in each feature maps.
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):

    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


torch.manual_seed(0)
# stands in for models.vgg19(weights=VGG19_Weights.DEFAULT).features.eval()
cnn = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
).eval()

cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])


# create a module to normalize input image so we can easily put it in a
# ``nn.Sequential``
class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        # .view the mean and std to make them [C x 1 x 1] so that they can
        # directly work with image Tensor of shape [B x C x H x W].
        # B is batch size. C is number of channels. H is height and W is width.
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        # normalize ``img``
        return (img - self.mean) / self.std


# desired depth layers to compute style/content losses :
content_layers_default = ['conv_4']
style_layers_default = ['conv_1', 'conv_2', 'conv_3', 'conv_4', 'conv_5']


def get_style_model_and_losses(cnn, normalization_mean, normalization_std,
                               style_img, content_img,
                               content_layers=content_layers_default,
                               style_layers=style_layers_default):
    cnn = copy.deepcopy(cnn)
    # normalization module
    normalization = Normalization(normalization_mean, normalization_std)

    # just in order to have an iterable access to or list of content/style
    # losses
    content_losses = []
    style_losses = []

    # assuming that ``cnn`` is a ``nn.Sequential``, so we make a new ``nn.Sequential``
    # to put in modules that are supposed to be activated sequentially
    model = nn.Sequential(normalization)

    i = 0  # increment every time we see a conv
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = 'conv_{}'.format(i)
        elif isinstance(layer, nn.ReLU):
            name = 'relu_{}'.format(i)
            # The in-place version doesn't play very nicely with the ``ContentLoss``
            # and ``StyleLoss`` we insert below. So we replace with out-of-place
            # ones here.
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = 'pool_{}'.format(i)
        elif isinstance(layer, nn.BatchNorm2d):
            name = 'bn_{}'.format(i)
        else:
            raise RuntimeError('Unrecognized layer: {}'.format(layer.__class__.__name__))

        model.add_module(name, layer)

        if name in content_layers:
            # add content loss:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)

        if name in style_layers:
            # add style loss:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)

    # now we trim off the layers after the last content and style losses
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break

    model = model[:(i + 1)]

    return model, style_losses, content_losses


# generated images: a smooth "content" gradient and a striped "style"
ys, xs = torch.meshgrid(torch.linspace(0, 1, imsize), torch.linspace(0, 1, imsize),
                        indexing="ij")
content_img = torch.stack([xs, ys, 0.5 * (xs + ys)]).unsqueeze(0)
style_img = torch.stack([(torch.sin(12 * xs) > 0).float(), 0.3 + 0.4 * ys,
                         (torch.cos(12 * ys) > 0).float()]).unsqueeze(0)
assert style_img.size() == content_img.size(), \
    "we need to import style and content images of the same size"

input_img = content_img.clone()


def get_input_optimizer(input_img):
    # this line to show that input is a parameter that requires a gradient
    optimizer = optim.LBFGS([input_img])
    return optimizer


history = []


def run_style_transfer(cnn, normalization_mean, normalization_std,
                       content_img, style_img, input_img, num_steps=300,
                       style_weight=1000000, content_weight=1):
    """Run the style transfer."""
    print('Building the style transfer model..')
    model, style_losses, content_losses = get_style_model_and_losses(cnn,
        normalization_mean, normalization_std, style_img, content_img)

    # We want to optimize the input and not the model parameters so we
    # update all the requires_grad fields accordingly
    input_img.requires_grad_(True)
    # We also put the model in evaluation mode, so that specific layers
    # such as dropout or batch normalization layers behave correctly.
    model.eval()
    model.requires_grad_(False)

    optimizer = get_input_optimizer(input_img)

    print('Optimizing..')
    run = [0]
    while run[0] <= num_steps:

        def closure():
            # correct the values of updated input image
            with torch.no_grad():
                input_img.clamp_(0, 1)

            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0

            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss

            style_score *= style_weight
            content_score *= content_weight

            loss = style_score + content_score
            loss.backward()

            run[0] += 1
            history.append(loss.item())
            if run[0] % 10 == 0:
                print("run {}:".format(run))
                print('Style Loss : {:4f} Content Loss: {:4f}'.format(
                    style_score.item(), content_score.item()))
                print()

            return style_score + content_score

        optimizer.step(closure)

    # a last correction...
    with torch.no_grad():
        input_img.clamp_(0, 1)

    return input_img, model


output, model = run_style_transfer(cnn, cnn_normalization_mean, cnn_normalization_std,
                                   content_img, style_img, input_img, num_steps=30)

names = [name for name, _ in model.named_children()]
print(names)
assert names[0] == "0" and names[1] == "conv_1" and names[2] == "style_loss_1"
assert "content_loss_4" in names and names[-1] == "style_loss_5"
assert isinstance(model.relu_1, nn.ReLU) and not model.relu_1.inplace
assert all(not p.requires_grad for p in model.parameters())
assert output is input_img and output.shape == (1, 3, imsize, imsize)
assert float(output.min()) >= 0 and float(output.max()) <= 1
assert len(history) >= 30
assert min(history[-10:]) < 0.2 * history[0]  # (clamping makes the curve jump)
# the original cnn was deep-copied: its ReLUs stay in-place
assert cnn[1].inplace
