"""pytorch/examples fast_neural_style: transformer_net.py (ConvLayer with nn.ReflectionPad2d,
torch.nn.InstanceNorm2d(affine=True), ResidualBlock with out + residual, UpsampleConvLayer with
torch.nn.functional.interpolate(mode='nearest', scale_factor=2)) and utils.py (gram_matrix with
features.bmm(features_t) / (ch * h * w), normalize_batch with .new_tensor(mean).view(-1, 1, 1)
and batch.div_(255.0)); a few Adam steps of content + style loss on random 'images'."""
import torch


class TransformerNet(torch.nn.Module):
    def __init__(self):
        super(TransformerNet, self).__init__()
        # Initial convolution layers
        self.conv1 = ConvLayer(3, 8, kernel_size=9, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(8, affine=True)
        self.conv2 = ConvLayer(8, 16, kernel_size=3, stride=2)
        self.in2 = torch.nn.InstanceNorm2d(16, affine=True)
        # Residual layers
        self.res1 = ResidualBlock(16)
        self.res2 = ResidualBlock(16)
        # Upsampling Layers
        self.deconv1 = UpsampleConvLayer(16, 8, kernel_size=3, stride=1, upsample=2)
        self.in4 = torch.nn.InstanceNorm2d(8, affine=True)
        self.deconv3 = ConvLayer(8, 3, kernel_size=9, stride=1)
        # Non-linearities
        self.relu = torch.nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.deconv3(y)
        return y


class ConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super(ConvLayer, self).__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        out = self.reflection_pad(x)
        out = self.conv2d(out)
        return out


class ResidualBlock(torch.nn.Module):
    """ResidualBlock
    introduced in: https://arxiv.org/abs/1512.03385
    recommended architecture: http://torch.ch/blog/2016/02/04/resnets.html
    """

    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        out = out + residual
        return out


class UpsampleConvLayer(torch.nn.Module):
    """UpsampleConvLayer
    Upsamples the input and then does a convolution. This method gives better results
    compared to ConvTranspose2d.
    ref: http://distill.pub/2016/deconv-checkerboard/
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super(UpsampleConvLayer, self).__init__()
        self.upsample = upsample
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = torch.nn.functional.interpolate(x_in, mode='nearest', scale_factor=self.upsample)
        out = self.reflection_pad(x_in)
        out = self.conv2d(out)
        return out


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # normalize using imagenet mean and std
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


torch.manual_seed(0)
transformer = TransformerNet()
optimizer = torch.optim.Adam(transformer.parameters(), 1e-2)
mse_loss = torch.nn.MSELoss()
# a fixed random "feature extractor" stands in for VGG16
vgg = torch.nn.Sequential(torch.nn.Conv2d(3, 6, 3, padding=1), torch.nn.ReLU())
for p in vgg.parameters():
    p.requires_grad_(False)
style = torch.rand(1, 3, 16, 16) * 255
gram_style = gram_matrix(vgg(normalize_batch(style.clone())))
content_weight, style_weight = 1.0, 10.0
x = torch.rand(2, 3, 16, 16) * 255
losses = []
for step in range(8):
    optimizer.zero_grad()
    y = transformer(x)
    assert y.shape == x.shape
    y = normalize_batch(y)
    xn = normalize_batch(x.clone())
    features_y, features_x = vgg(y), vgg(xn)
    content_loss = content_weight * mse_loss(features_y, features_x)
    gm_y = gram_matrix(features_y)
    style_loss = style_weight * mse_loss(gm_y, gram_style[:2, :, :].expand_as(gm_y))
    total_loss = content_loss + style_loss
    total_loss.backward()
    optimizer.step()
    losses.append(total_loss.item())
print(losses)
assert losses[-1] < losses[0], losses
assert set(transformer.state_dict()) >= {"in1.weight", "in1.bias", "res1.conv1.conv2d.weight"}
assert "in1.running_mean" not in transformer.state_dict()   # InstanceNorm2d tracks no stats
