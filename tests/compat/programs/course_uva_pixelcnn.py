"""UvA Deep Learning tutorial 12 ("Autoregressive Image Modeling", Phillip Lippe), at toy size on
synthetic 8x8 images with 256 grey levels (MNIST, torchvision and PyTorch Lightning left out; the
plots become assertions): discretize ((sample * 255).to(torch.long)), MaskedConvolution with a
registered mask buffer (mask[None,None]) applied as self.conv.weight.data *= self.mask, dilation
passed through **kwargs, Vertical/HorizontalStackConvolution masks, show_center_recep_field
(out[0,:,h//2,w//2].sum().backward(retain_graph=True), img.grad.abs(), img.grad.fill_(0)) for
stacked layers with weights filled with 1, GatedMaskedConv (chunk(2, dim=1), tanh * sigmoid
gates), PixelCNN with 7 gated layers (dilations 2 and 4), out.reshape(B, 256, C, H, W) and
F.cross_entropy over the 256 levels of a 5-D logit tensor with reduction='none', bits per
dimension nll.mean(dim=[1,2,3]) * np.log2(np.exp(1)), Adam + StepLR, sampling pixel by pixel with
torch.multinomial on F.softmax(pred[:,:,c,h,w]) under @torch.no_grad(), autocompletion of images
whose lower rows are set to -1 (img.unsqueeze(0).expand(...): on the cpu, where .to(device)
copies nothing, writing into the expanded view is refused, as torch does), the mean predicted distribution
(out.mean(dim=[0,2,3,4])), and the discrete logistic."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")
torch.manual_seed(42)
np.random.seed(42)


def discretize(sample):
    return (sample * 255).to(torch.long)


# synthetic "MNIST": a bright vertical or horizontal bar on a dark 8x8 canvas, in [0, 1]
g = torch.Generator().manual_seed(0)
def make(n):
    imgs = torch.rand(n, 1, 8, 8, generator=g) * 0.1
    for i in range(n):
        k = int(torch.randint(1, 7, (1,), generator=g))
        if i % 2: imgs[i, 0, :, k] = 0.9
        else: imgs[i, 0, k, :] = 0.9
    return data.TensorDataset(discretize(imgs), torch.zeros(n, dtype=torch.long))
train_dataset = make(320)
train_set, val_set = torch.utils.data.random_split(train_dataset, [256, 64])
train_loader = data.DataLoader(train_set, batch_size=32, shuffle=True, drop_last=True)
val_loader = data.DataLoader(val_set, batch_size=32, shuffle=False, drop_last=False)
assert train_set[0][0].dtype == torch.long and int(train_set[0][0].max()) == 229


class MaskedConvolution(nn.Module):

    def __init__(self, c_in, c_out, mask, **kwargs):
        super().__init__()
        kernel_size = (mask.shape[0], mask.shape[1])
        dilation = 1 if "dilation" not in kwargs else kwargs["dilation"]
        padding = tuple([dilation*(kernel_size[i]-1)//2 for i in range(2)])
        self.conv = nn.Conv2d(c_in, c_out, kernel_size, padding=padding, **kwargs)

        # Mask as buffer => it is no parameter but still a tensor of the module
        # (must be moved with the devices)
        self.register_buffer('mask', mask[None, None])

    def forward(self, x):
        self.conv.weight.data *= self.mask  # Ensures zero's at masked positions
        return self.conv(x)


class VerticalStackConvolution(MaskedConvolution):

    def __init__(self, c_in, c_out, kernel_size=3, mask_center=False, **kwargs):
        # Mask out all pixels below. For efficiency, we could also reduce the kernel
        # size in height, but for simplicity, we stick with masking here.
        mask = torch.ones(kernel_size, kernel_size)
        mask[kernel_size//2+1:, :] = 0

        # For the very first convolution, we will also mask the center row
        if mask_center:
            mask[kernel_size//2, :] = 0

        super().__init__(c_in, c_out, mask, **kwargs)


class HorizontalStackConvolution(MaskedConvolution):

    def __init__(self, c_in, c_out, kernel_size=3, mask_center=False, **kwargs):
        # Mask out all pixels on the left. Note that our kernel has a size of 1
        # in height because we only look at the pixel in the same row.
        mask = torch.ones(1, kernel_size)
        mask[0, kernel_size//2+1:] = 0

        # For the very first convolution, we will also mask the center pixel
        if mask_center:
            mask[0, kernel_size//2] = 0

        super().__init__(c_in, c_out, mask, **kwargs)


inp_img = torch.zeros(1, 1, 11, 11)
inp_img.requires_grad_()


def center_recep_field(img, out):   # show_center_recep_field without the plot
    loss = out[0, :, img.shape[2]//2, img.shape[3]//2].sum()  # L1 loss for simplicity
    # Retain graph as we want to stack multiple layers and show the receptive field of all of them
    loss.backward(retain_graph=True)
    img_grads = img.grad.abs()
    img.grad.fill_(0)  # Reset grads
    return (img_grads.squeeze().cpu().numpy() > 0).astype(int)


field = center_recep_field(inp_img, inp_img)
assert field.sum() == 1 and field[5, 5] == 1
horiz_conv = HorizontalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=True)
horiz_conv.conv.weight.data.fill_(1)
horiz_conv.conv.bias.data.fill_(0)
horiz_img = horiz_conv(inp_img)
field = center_recep_field(inp_img, horiz_img)
assert field.sum() == 1 and field[5, 4] == 1                     # only the pixel on the left
vert_conv = VerticalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=True)
vert_conv.conv.weight.data.fill_(1)
vert_conv.conv.bias.data.fill_(0)
vert_img = vert_conv(inp_img)
field = center_recep_field(inp_img, vert_img)
assert field.sum() == 3 and field[4, 4:7].tolist() == [1, 1, 1]  # the row above
horiz_img = vert_img + horiz_img
field = center_recep_field(inp_img, horiz_img)
assert field.sum() == 4

# Initialize convolutions with equal weight to all input pixels
horiz_conv = HorizontalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=False)
horiz_conv.conv.weight.data.fill_(1)
horiz_conv.conv.bias.data.fill_(0)
vert_conv = VerticalStackConvolution(c_in=1, c_out=1, kernel_size=3, mask_center=False)
vert_conv.conv.weight.data.fill_(1)
vert_conv.conv.bias.data.fill_(0)
assert vert_conv.mask.shape == (1, 1, 3, 3) and vert_conv.conv.weight[0, 0, 2].sum() == 3  # masked in forward
for l_idx in range(4):
    vert_img = vert_conv(vert_img)
    horiz_img = horiz_conv(horiz_img) + vert_img
    field = center_recep_field(inp_img, horiz_img)
    print(f"Layer {l_idx+2}\n", field)
    assert field[6:].sum() == 0 and field[5, 5:].sum() == 0   # nothing below or to the right
    assert field[5, 5 - (l_idx + 2):5].sum() == l_idx + 2      # the row to the left grows
assert vert_conv.conv.weight[0, 0, 2].sum() == 0
field = center_recep_field(inp_img, vert_img)
assert field[5:].sum() == 0 and field[:5].sum() > 0
del inp_img, horiz_conv, vert_conv


class GatedMaskedConv(nn.Module):

    def __init__(self, c_in, **kwargs):
        super().__init__()
        self.conv_vert = VerticalStackConvolution(c_in, c_out=2*c_in, **kwargs)
        self.conv_horiz = HorizontalStackConvolution(c_in, c_out=2*c_in, **kwargs)
        self.conv_vert_to_horiz = nn.Conv2d(2*c_in, 2*c_in, kernel_size=1, padding=0)
        self.conv_horiz_1x1 = nn.Conv2d(c_in, c_in, kernel_size=1, padding=0)

    def forward(self, v_stack, h_stack):
        # Vertical stack (left)
        v_stack_feat = self.conv_vert(v_stack)
        v_val, v_gate = v_stack_feat.chunk(2, dim=1)
        v_stack_out = torch.tanh(v_val) * torch.sigmoid(v_gate)

        # Horizontal stack (right)
        h_stack_feat = self.conv_horiz(h_stack)
        h_stack_feat = h_stack_feat + self.conv_vert_to_horiz(v_stack_feat)
        h_val, h_gate = h_stack_feat.chunk(2, dim=1)
        h_stack_feat = torch.tanh(h_val) * torch.sigmoid(h_gate)
        h_stack_out = self.conv_horiz_1x1(h_stack_feat)
        h_stack_out = h_stack_out + h_stack

        return v_stack_out, h_stack_out


class PixelCNN(nn.Module):

    def __init__(self, c_in, c_hidden):
        super().__init__()
        self.hparams = dict(c_in=c_in, c_hidden=c_hidden)

        # Initial convolutions skipping the center pixel
        self.conv_vstack = VerticalStackConvolution(c_in, c_hidden, mask_center=True)
        self.conv_hstack = HorizontalStackConvolution(c_in, c_hidden, mask_center=True)
        # Convolution block of PixelCNN. We use dilation instead of downscaling
        self.conv_layers = nn.ModuleList([
            GatedMaskedConv(c_hidden),
            GatedMaskedConv(c_hidden, dilation=2),
            GatedMaskedConv(c_hidden),
            GatedMaskedConv(c_hidden, dilation=4),
            GatedMaskedConv(c_hidden),
            GatedMaskedConv(c_hidden, dilation=2),
            GatedMaskedConv(c_hidden)
        ])
        # Output classification convolution (1x1)
        self.conv_out = nn.Conv2d(c_hidden, c_in * 256, kernel_size=1, padding=0)

        self.example_input_array = train_set[0][0][None]
        self.logged = {}

    def log(self, name, value): self.logged.setdefault(name, []).append(value.item())

    def forward(self, x):
        # Scale input from 0 to 255 back to -1 to 1
        x = (x.float() / 255.0) * 2 - 1

        # Initial convolutions
        v_stack = self.conv_vstack(x)
        h_stack = self.conv_hstack(x)
        # Gated Convolutions
        for layer in self.conv_layers:
            v_stack, h_stack = layer(v_stack, h_stack)
        # 1x1 classification convolution
        # Apply ELU before 1x1 convolution for non-linearity on residual connection
        out = self.conv_out(F.elu(h_stack))

        # Output dimensions: [Batch, Classes, Channels, Height, Width]
        out = out.reshape(out.shape[0], 256, out.shape[1]//256, out.shape[2], out.shape[3])
        return out

    def calc_likelihood(self, x):
        # Forward pass with bpd likelihood calculation
        pred = self.forward(x)
        nll = F.cross_entropy(pred, x, reduction='none')
        bpd = nll.mean(dim=[1, 2, 3]) * np.log2(np.exp(1))
        return bpd.mean()

    @torch.no_grad()
    def sample(self, img_shape, img=None):
        # Create empty image
        if img is None:
            img = torch.zeros(img_shape, dtype=torch.long).to(device) - 1
        # Generation loop
        for h in range(img_shape[2]):
            for w in range(img_shape[3]):
                for c in range(img_shape[1]):
                    # Skip if not to be filled (-1)
                    if (img[:, c, h, w] != -1).all().item():
                        continue
                    # For efficiency, we only have to input the upper part of the image
                    # as all other parts will be skipped by the masked convolutions anyways
                    pred = self.forward(img[:, :, :h+1, :])
                    probs = F.softmax(pred[:, :, c, h, w], dim=-1)
                    img[:, c, h, w] = torch.multinomial(probs, num_samples=1).squeeze(dim=-1)
        return img

    def configure_optimizers(self):
        optimizer = optim.Adam(self.parameters(), lr=1e-3)
        scheduler = optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.99)
        return [optimizer], [scheduler]

    def training_step(self, batch, batch_idx):
        loss = self.calc_likelihood(batch[0])
        self.log('train_bpd', loss)
        return loss

    def validation_step(self, batch, batch_idx):
        loss = self.calc_likelihood(batch[0])
        self.log('val_bpd', loss)


# the whole network is causal: the center output sees only the pixels before it in raster order
test_model = PixelCNN(c_in=1, c_hidden=16)
inp = torch.zeros(1, 1, 11, 11)
inp.requires_grad_()
out = test_model(inp)
assert out.shape == (1, 256, 1, 11, 11)
field = center_recep_field(inp, out.squeeze(dim=2))
assert field[6:].sum() == 0 and field[5, 5:].sum() == 0 and field[5, 4] == 1 and field[:5].sum() > 20
del inp, out, test_model

# training (the Lightning loop, by hand)
torch.manual_seed(42)
model = PixelCNN(c_in=1, c_hidden=16)
[optimizer], [scheduler] = model.configure_optimizers()
for epoch in range(3):
    model.train()
    for batch_idx, batch in enumerate(train_loader):
        loss = model.training_step(batch, batch_idx)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
    model.eval()
    with torch.no_grad():
        for batch_idx, batch in enumerate(val_loader):
            model.validation_step(batch, batch_idx)
bpd = model.logged['train_bpd']
print('bpd', bpd[0], bpd[-1], model.logged['val_bpd'])
assert abs(bpd[0] - 8) < 0.5 and bpd[-1] < bpd[0] - 1            # from uniform over 256 levels
assert abs(optimizer.param_groups[0]['lr'] - 1e-3 * 0.99**3) < 1e-12
num_params = sum([np.prod(param.shape) for param in model.parameters()])
assert num_params == sum(p.numel() for p in model.parameters())
# a masked weight stays zero through training (forward re-masks it before every use)
assert model.conv_vstack.conv.weight[:, :, 1:].abs().sum() == 0

torch.manual_seed(1)
samples = model.sample(img_shape=(4, 1, 8, 8))
assert samples.dtype == torch.long and samples.shape == (4, 1, 8, 8)
assert bool(((samples >= 0) & (samples <= 255)).all())

# autocompletion: keep the top rows, sample the rest
def autocomplete_image(img):
    img_init = img.clone()
    img_init[:, 4:, :] = -1
    img_init = img_init.unsqueeze(dim=0).expand(3, -1, -1, -1).to(device)
    torch.manual_seed(1)
    img_generated = model.sample(img_init.shape, img_init)
    return img_init, img_generated


img = train_set[1][0]
try:
    img_init, img_generated = autocomplete_image(img)
    assert device.type == 'cuda'
except RuntimeError as e:
    # on the cpu .to(device) is a no-op: sample() writes into the expand()ed view, refused
    print(e)
    assert device.type == 'cpu' and 'memory location' in str(e)
    img_init = img.clone()
    img_init[:, 4:, :] = -1
    img_init = img_init.unsqueeze(dim=0).expand(3, -1, -1, -1).clone()
    torch.manual_seed(1)
    img_generated = model.sample(img_init.shape, img_init)
assert torch.equal(img_generated[:, :, :4], img[None, :, :4].expand(3, -1, -1, -1))
assert bool((img_generated[:, :, 4:] >= 0).all())

# the mean predicted distribution over the 256 values
det_loader = data.DataLoader(train_set, batch_size=128, shuffle=False, drop_last=False)
imgs, _ = next(iter(det_loader))
with torch.no_grad():
    out = model(imgs)
    out = F.softmax(out, dim=1)
    mean_out = out.mean(dim=[0, 2, 3, 4]).cpu().numpy()
    out = out.cpu().numpy()
assert mean_out.shape == (256,) and abs(mean_out.sum() - 1) < 1e-4 and mean_out[:30].sum() > 2 * 30 / 256   # mostly dark pixels

mu = torch.Tensor([128])
sigma = torch.Tensor([2.0])


def discrete_logistic(x, mu, sigma):
    return torch.sigmoid((x+0.5-mu)/sigma) - torch.sigmoid((x-0.5-mu)/sigma)


x = torch.arange(256)
p = discrete_logistic(x, mu, sigma)
assert p.dtype == torch.float32 and p.argmax().item() == 128 and abs(p.sum().item() - 1) < 1e-4
