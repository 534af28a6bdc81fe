"""Dive into Deep Learning (d2l-ai/d2l-en), chapter_computer-vision: transposed-conv.md, fcn.md and
neural-style.md, PyTorch tab, at toy size (torchvision's pretrained ResNet-18 and VGG-19 replaced by
small untrained conv stacks, the VOC data and the two photographs by synthetic tensors, plots by
assertions): trans_conv by hand (Y[i: i + h, j: j + w] += X[i, j] * K), nn.ConvTranspose2d with
tconv.weight.data = K for padding=1 and stride=2 against the book's printed results, a conv /
transposed conv pair restoring the shape, corr2d, kernel2matrix (slice assignment of several
rows at once) and the transposed convolution as W.T @ Y; FCN: nn.Sequential(*list(net.children())
[:-2]) with add_module of a 1x1 conv and a ConvTranspose2d(kernel_size=64, padding=16, stride=32),
bilinear_kernel (weight[range(c), range(c), :, :] = filt), weight.data.copy_, the per-pixel loss
F.cross_entropy(..., reduction='none').mean(1).mean(1), and label2image (colormap[X, :]); neural
style: extract_features over an nn.Sequential by index, content_loss, gram, style_loss, tv_loss,
SynthesizedImage as an nn.Module holding the image as its Parameter, Adam with StepLR, and
postprocess (clamp of a permuted, de-normalised image)."""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


def corr2d(X, K):
    """Compute 2D cross-correlation."""
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i: i + h, j: j + w] * K).sum()
    return Y


# ---- transposed-conv.md
def trans_conv(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] + h - 1, X.shape[1] + w - 1))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            Y[i: i + h, j: j + w] += X[i, j] * K
    return Y


X = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
assert trans_conv(X, K).tolist() == [[0., 0., 1.], [0., 4., 6.], [4., 12., 9.]]
X, K = X.reshape(1, 1, 2, 2), K.reshape(1, 1, 2, 2)
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
tconv.weight.data = K
assert tconv(X).tolist() == [[[[0., 0., 1.], [0., 4., 6.], [4., 12., 9.]]]]
assert tconv.weight.data_ptr() == K.data_ptr() and isinstance(tconv.weight, nn.Parameter)
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, padding=1, bias=False)
tconv.weight.data = K
assert tconv(X).tolist() == [[[[4.]]]]
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, stride=2, bias=False)
tconv.weight.data = K
assert tconv(X).tolist() == [[[[0., 0., 0., 1.], [0., 0., 2., 3.], [0., 2., 0., 3.], [4., 6., 6., 9.]]]]
X = torch.rand(size=(1, 10, 16, 16))
conv = nn.Conv2d(10, 20, kernel_size=5, padding=2, stride=3)
tconv = nn.ConvTranspose2d(20, 10, kernel_size=5, padding=2, stride=3)
assert tconv(conv(X)).shape == X.shape

X = torch.arange(9.0).reshape(3, 3)
K = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
Y = corr2d(X, K)
assert Y.tolist() == [[27., 37.], [57., 67.]]


def kernel2matrix(K):
    k, W = torch.zeros(5), torch.zeros((4, 9))
    k[:2], k[3:5] = K[0, :], K[1, :]
    W[0, :5], W[1, 1:6], W[2, 3:8], W[3, 4:] = k, k, k, k
    return W


W = kernel2matrix(K)
print(W)
assert W[1].tolist() == [0., 1., 2., 0., 3., 4., 0., 0., 0.]
assert bool((Y == torch.matmul(W, X.reshape(-1)).reshape(2, 2)).all())
Z = trans_conv(Y, K)
assert bool((Z == torch.matmul(W.T, Y.reshape(-1)).reshape(3, 3)).all())


# ---- fcn.md (a small conv body stands in for the pretrained ResNet-18, stride 32 overall)
class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.layer1 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=4, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.layer2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=4, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32, 1000)


pretrained_net = Body()
print(list(pretrained_net.children())[-3:])
net = nn.Sequential(*list(pretrained_net.children())[:-2])
X = torch.rand(size=(1, 3, 320, 480))
assert net(X).shape == (1, 32, 10, 15)
num_classes = 21
net.add_module('final_conv', nn.Conv2d(32, num_classes, kernel_size=1))
net.add_module('transpose_conv', nn.ConvTranspose2d(num_classes, num_classes,
                                                    kernel_size=64, padding=16, stride=32))
assert net(X).shape == (1, 21, 320, 480)


def bilinear_kernel(in_channels, out_channels, kernel_size):
    factor = (kernel_size + 1) // 2
    if kernel_size % 2 == 1:
        center = factor - 1
    else:
        center = factor - 0.5
    og = (torch.arange(kernel_size).reshape(-1, 1),
          torch.arange(kernel_size).reshape(1, -1))
    filt = (1 - torch.abs(og[0] - center) / factor) * \
        (1 - torch.abs(og[1] - center) / factor)
    weight = torch.zeros((in_channels, out_channels,
                          kernel_size, kernel_size))
    weight[range(in_channels), range(out_channels), :, :] = filt
    return weight


conv_trans = nn.ConvTranspose2d(3, 3, kernel_size=4, padding=1, stride=2,
                                bias=False)
conv_trans.weight.data.copy_(bilinear_kernel(3, 3, 4))
assert conv_trans.weight[0, 1].abs().sum() == 0 and conv_trans.weight[2, 2, 1, 1] == 0.5625
img = torch.rand(3, 56, 72)
X = img.unsqueeze(0)
Y = conv_trans(X)
out_img = Y[0].permute(1, 2, 0).detach()
print('input image shape:', img.permute(1, 2, 0).shape)
print('output image shape:', out_img.shape)
assert out_img.shape == (112, 144, 3)
# bilinear upsampling: the interior matches F.interpolate(align_corners=False)
ref = F.interpolate(X, scale_factor=2, mode='bilinear', align_corners=False)
assert torch.allclose(Y[..., 1:-1, 1:-1], ref[..., 1:-1, 1:-1], atol=1e-6)

W = bilinear_kernel(num_classes, num_classes, 64)
net.transpose_conv.weight.data.copy_(W)


def loss(inputs, targets):
    return F.cross_entropy(inputs, targets, reduction='none').mean(1).mean(1)


# synthetic segmentation: the class of each pixel is the quadrant it lies in (classes 1-4)
def make_seg(n):
    X = torch.rand(n, 3, 64, 64) * 0.2
    Y = torch.zeros(n, 64, 64, dtype=torch.long)
    for q, (r, c) in enumerate([(0, 0), (0, 32), (32, 0), (32, 32)]):
        X[:, q % 3, r:r + 32, c:c + 32] += 0.8 * (q + 1) / 4
        Y[:, r:r + 32, c:c + 32] = q + 1
    return X, Y
Xs, Ys = make_seg(8)
lr, wd = 0.1, 1e-3
trainer = torch.optim.SGD(net.parameters(), lr=lr, weight_decay=wd)
losses = []
for epoch in range(8):
    net.train()
    trainer.zero_grad()
    l = loss(net(Xs), Ys)
    assert l.shape == (8,)
    l.sum().backward()
    trainer.step()
    losses.append(l.mean().item())
print(losses)
assert losses[-1] < losses[0]

VOC_COLORMAP = [[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0], [0, 0, 128]] + [[64, 0, 0]] * 16


def predict(X):
    pred = net(X.unsqueeze(0)).argmax(dim=1)
    return pred.reshape(pred.shape[1], pred.shape[2])


def label2image(pred):
    colormap = torch.tensor(VOC_COLORMAP)
    X = pred.long()
    return colormap[X, :]


net.eval()
with torch.no_grad():
    pred = label2image(predict(Xs[0]))
assert pred.shape == (64, 64, 3) and pred.dtype == torch.int64

# ---- neural-style.md (a random conv stack stands in for VGG-19's features)
rgb_mean = torch.tensor([0.485, 0.456, 0.406])
rgb_std = torch.tensor([0.229, 0.224, 0.225])


def preprocess(img, image_shape):   # Resize + ToTensor + Normalize, for a (3, h, w) tensor in [0, 1]
    img = F.interpolate(img.unsqueeze(0), size=image_shape, mode='bilinear', align_corners=False)[0]
    return ((img - rgb_mean[:, None, None]) / rgb_std[:, None, None]).unsqueeze(0)


def postprocess(img):
    img = img[0].to(rgb_std.device)
    img = torch.clamp(img.permute(1, 2, 0) * rgb_std + rgb_mean, 0, 1)
    return img.permute(2, 0, 1)


features = nn.Sequential(*[m for c_in, c_out in [(3, 8), (8, 8), (8, 16), (16, 16), (16, 16)]
                           for m in (nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU())])
style_layers, content_layers = [0, 2, 4, 6], [8]
net = nn.Sequential(*[features[i] for i in
                      range(max(content_layers + style_layers) + 1)])
assert len(net) == 9
for p in net.parameters():
    p.requires_grad_(False)


def extract_features(X, content_layers, style_layers):
    contents = []
    styles = []
    for i in range(len(net)):
        X = net[i](X)
        if i in style_layers:
            styles.append(X)
        if i in content_layers:
            contents.append(X)
    return contents, styles


content_img = torch.linspace(0, 1, 48)[None, :, None].expand(3, 48, 64).clone()   # a gradient
style_img = (torch.arange(48)[:, None] // 4 % 2 + torch.arange(64)[None] // 4 % 2).float().expand(3, 48, 64) / 2


def get_contents(image_shape, device):
    content_X = preprocess(content_img, image_shape).to(device)
    contents_Y, _ = extract_features(content_X, content_layers, style_layers)
    return content_X, contents_Y


def get_styles(image_shape, device):
    style_X = preprocess(style_img, image_shape).to(device)
    _, styles_Y = extract_features(style_X, content_layers, style_layers)
    return style_X, styles_Y


def content_loss(Y_hat, Y):
    # We detach the target content from the tree used to dynamically compute
    # the gradient: this is a stated value, not a variable. Otherwise the loss
    # will throw an error.
    return torch.square(Y_hat - Y.detach()).mean()


def gram(X):
    num_channels, n = X.shape[1], X.numel() // X.shape[1]
    X = X.reshape((num_channels, n))
    return torch.matmul(X, X.T) / (num_channels * n)


def style_loss(Y_hat, gram_Y):
    return torch.square(gram(Y_hat) - gram_Y.detach()).mean()


def tv_loss(Y_hat):
    return 0.5 * (torch.abs(Y_hat[:, :, 1:, :] - Y_hat[:, :, :-1, :]).mean() +
                  torch.abs(Y_hat[:, :, :, 1:] - Y_hat[:, :, :, :-1]).mean())


content_weight, style_weight, tv_weight = 1, 1e4, 10


def compute_loss(X, contents_Y_hat, styles_Y_hat, contents_Y, styles_Y_gram):
    # Calculate the content, style, and total variance losses respectively
    contents_l = [content_loss(Y_hat, Y) * content_weight for Y_hat, Y in zip(
        contents_Y_hat, contents_Y)]
    styles_l = [style_loss(Y_hat, Y) * style_weight for Y_hat, Y in zip(
        styles_Y_hat, styles_Y_gram)]
    tv_l = tv_loss(X) * tv_weight
    # Add up all the losses
    l = sum(styles_l + contents_l + [tv_l])
    return contents_l, styles_l, tv_l, l


class SynthesizedImage(nn.Module):
    def __init__(self, img_shape, **kwargs):
        super(SynthesizedImage, self).__init__(**kwargs)
        self.weight = nn.Parameter(torch.rand(*img_shape))

    def forward(self):
        return self.weight


def get_inits(X, device, lr, styles_Y):
    gen_img = SynthesizedImage(X.shape).to(device)
    gen_img.weight.data.copy_(X.data)
    trainer = torch.optim.Adam(gen_img.parameters(), lr=lr)
    styles_Y_gram = [gram(Y) for Y in styles_Y]
    return gen_img(), styles_Y_gram, trainer


history = []


def train(X, contents_Y, styles_Y, device, lr, num_epochs, lr_decay_epoch):
    X, styles_Y_gram, trainer = get_inits(X, device, lr, styles_Y)
    scheduler = torch.optim.lr_scheduler.StepLR(trainer, lr_decay_epoch, 0.8)
    for epoch in range(num_epochs):
        trainer.zero_grad()
        contents_Y_hat, styles_Y_hat = extract_features(
            X, content_layers, style_layers)
        contents_l, styles_l, tv_l, l = compute_loss(
            X, contents_Y_hat, styles_Y_hat, contents_Y, styles_Y_gram)
        l.backward()
        trainer.step()
        scheduler.step()
        if (epoch + 1) % 10 == 0:
            history.append([float(sum(contents_l)), float(sum(styles_l)), float(tv_l)])
    return X, trainer


device, image_shape = torch.device('cpu'), (24, 32)  # PIL Image (h, w)
net = net.to(device)
content_X, contents_Y = get_contents(image_shape, device)
_, styles_Y = get_styles(image_shape, device)
assert content_X.shape == (1, 3, 24, 32) and [y.shape[1] for y in styles_Y] == [8, 8, 16, 16]
assert gram(styles_Y[0]).shape == (8, 8) and torch.allclose(gram(styles_Y[0]), gram(styles_Y[0]).T)
output, trainer = train(content_X, contents_Y, styles_Y, device, 0.3, 50, 20)
print(history)
assert len(history) == 5 and history[-1][1] < history[0][1]                 # the style loss falls
assert abs(trainer.param_groups[0]['lr'] - 0.3 * 0.8 ** 2) < 1e-12
assert isinstance(output, nn.Parameter) and output.grad is not None
img = postprocess(output.detach())
assert img.shape == (3, 24, 32) and 0 <= img.min() and img.max() <= 1
