"""Deep Learning with PyTorch (Stevens, Antiga, Viehmann), part 2 (deep-learning-with-pytorch/
dlwpt-code, p2ch11-p2ch13 and util/unet.py), on synthetic CT chunks in place of LUNA16: LunaModel
and LunaBlock (nn.Conv3d, nn.ReLU(inplace=True), nn.MaxPool3d, nn.BatchNorm3d on the input, the
head nn.Softmax(dim=1)), _init_weights (type(m) in a set of classes, kaiming_normal_ with
mode='fan_out' on weight.data, nn.init._calculate_fan_in_and_fan_out, normal_ on the bias),
getCtAugmentedCandidate's 3-D augmentation (a 4x4 transform_t with flips, offsets, scales and
`transform_t @= rotation_t`, F.affine_grid on transform_t[:3].unsqueeze(0), F.grid_sample with
padding_mode='border', noise added in place), computeBatchLoss writing per-sample losses,
labels and probabilities into slices of a metrics tensor, logMetrics (boolean masks, ~mask, the
precision/recall/F1 from np.float32 counts, metrics_t[METRICS_LOSS_NDX, negLabel_mask]), then
the segmentation model: util/unet.py's UNet (ModuleList down and up paths, F.avg_pool2d,
ConvTranspose2d up-convolutions, center_crop, padding=True and batch_norm), UNetWrapper with an
input BatchNorm2d and a Sigmoid, SegmentationAugmentation (2-D affine grid, labels resampled as
float and thresholded), the dice loss with its false-negative term, and the tp/fn/fp counts
(predictionBool_g * (~label_g))."""
import math
import random

import numpy as np
import torch
from torch import nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)
device = torch.device('cpu')


# ---- p2ch12/model.py
class LunaModel(nn.Module):
    def __init__(self, in_channels=1, conv_channels=8):
        super().__init__()

        self.tail_batchnorm = nn.BatchNorm3d(1)

        self.block1 = LunaBlock(in_channels, conv_channels)
        self.block2 = LunaBlock(conv_channels, conv_channels * 2)
        self.block3 = LunaBlock(conv_channels * 2, conv_channels * 4)
        self.block4 = LunaBlock(conv_channels * 4, conv_channels * 8)

        self.head_linear = nn.Linear(1152, 2)
        self.head_softmax = nn.Softmax(dim=1)

        self._init_weights()

    def _init_weights(self):
        for m in self.modules():
            if type(m) in {
                nn.Linear,
                nn.Conv3d,
                nn.Conv2d,
                nn.ConvTranspose2d,
                nn.ConvTranspose3d,
            }:
                nn.init.kaiming_normal_(
                    m.weight.data, a=0, mode='fan_out', nonlinearity='relu',
                )
                if m.bias is not None:
                    fan_in, fan_out = \
                        nn.init._calculate_fan_in_and_fan_out(m.weight.data)
                    bound = 1 / math.sqrt(fan_out)
                    nn.init.normal_(m.bias, -bound, bound)

    def forward(self, input_batch):
        bn_output = self.tail_batchnorm(input_batch)

        block_out = self.block1(bn_output)
        block_out = self.block2(block_out)
        block_out = self.block3(block_out)
        block_out = self.block4(block_out)

        conv_flat = block_out.view(
            block_out.size(0),
            -1,
        )
        linear_output = self.head_linear(conv_flat)

        return linear_output, self.head_softmax(linear_output)


class LunaBlock(nn.Module):
    def __init__(self, in_channels, conv_channels):
        super().__init__()

        self.conv1 = nn.Conv3d(
            in_channels, conv_channels, kernel_size=3, padding=1, bias=True,
        )
        self.relu1 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv3d(
            conv_channels, conv_channels, kernel_size=3, padding=1, bias=True,
        )
        self.relu2 = nn.ReLU(inplace=True)

        self.maxpool = nn.MaxPool3d(2, 2)

    def forward(self, input_batch):
        block_out = self.conv1(input_batch)
        block_out = self.relu1(block_out)
        block_out = self.conv2(block_out)
        block_out = self.relu2(block_out)

        return self.maxpool(block_out)


# the book's candidate chunk is 32x48x48 (1152 = 64 * 2 * 3 * 3 features); a smaller width here
model = LunaModel(conv_channels=2)
model.head_linear = nn.Linear(16 * 1 * 1 * 1, 2)
w = model.block1.conv1.weight
fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(w)
assert (fan_in, fan_out) == (27, 54)
assert abs(w.std().item() - math.sqrt(2 / 54)) < 0.1
assert model.block1.relu1.inplace and model.tail_batchnorm.num_features == 1


# ---- p2ch12/dsets.py: getCtAugmentedCandidate on an in-memory chunk
def getCtAugmentedCandidate(augmentation_dict, ct_chunk):
    ct_t = torch.tensor(ct_chunk).unsqueeze(0).unsqueeze(0).to(torch.float32)

    transform_t = torch.eye(4)

    for i in range(3):
        if 'flip' in augmentation_dict:
            if random.random() > 0.5:
                transform_t[i, i] *= -1

        if 'offset' in augmentation_dict:
            offset_float = augmentation_dict['offset']
            random_float = (random.random() * 2 - 1)
            transform_t[i, 3] = offset_float * random_float

        if 'scale' in augmentation_dict:
            scale_float = augmentation_dict['scale']
            random_float = (random.random() * 2 - 1)
            transform_t[i, i] *= 1.0 + scale_float * random_float

    if 'rotate' in augmentation_dict:
        angle_rad = random.random() * math.pi * 2
        s = math.sin(angle_rad)
        c = math.cos(angle_rad)

        rotation_t = torch.tensor([
            [c, -s, 0, 0],
            [s, c, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 1],
        ])

        transform_t @= rotation_t

    affine_t = F.affine_grid(
        transform_t[:3].unsqueeze(0).to(torch.float32),
        ct_t.size(),
        align_corners=False,
    )

    augmented_chunk = F.grid_sample(
        ct_t,
        affine_t,
        padding_mode='border',
        align_corners=False,
    ).to('cpu')

    if 'noise' in augmentation_dict:
        noise_t = torch.randn_like(augmented_chunk)
        noise_t *= augmentation_dict['noise']

        augmented_chunk += noise_t

    return augmented_chunk[0], transform_t


# synthetic CT chunks (16x24x24, Hounsfield-like values): "nodules" are bright balls
def make_chunk(nodule):
    zz, yy, xx = np.meshgrid(np.arange(16), np.arange(24), np.arange(24), indexing='ij')
    chunk = np.random.RandomState(len(chunks)).normal(-700, 50, (16, 24, 24))
    if nodule:
        chunk[(zz - 8) ** 2 + (yy - 12) ** 2 + (xx - 12) ** 2 < 30] = 300.
    return chunk.clip(-1000, 1000) / 1000
chunks = []
for i in range(48):
    chunks.append((make_chunk(i % 2 == 0), int(i % 2 == 0)))   # balanced, as ratio_int=1 in p2ch12
chunk = chunks[0][0]
same, t = getCtAugmentedCandidate({}, chunk)
assert torch.equal(t, torch.eye(4)) and torch.allclose(same[0], torch.tensor(chunk, dtype=torch.float32), atol=1e-5)
flipped, t = getCtAugmentedCandidate({'flip': True}, chunk)
print(t.diagonal())
axes = [2 - i for i in range(3) if t[i, i] < 0]      # x, y, z of the transform are dims 2, 1, 0
assert torch.allclose(flipped[0], torch.tensor(chunk, dtype=torch.float32).flip(axes) if axes else same[0], atol=1e-5)
aug, t = getCtAugmentedCandidate({'flip': True, 'offset': 0.1, 'scale': 0.2, 'rotate': True, 'noise': 25.0 / 1000}, chunk)
assert aug.shape == (1, 16, 24, 24) and aug.dtype == torch.float32
assert abs(torch.det(t[:2, :2]).abs().item() - abs(t[0, 0] * t[1, 1] - t[0, 1] * t[1, 0]).item()) < 1e-6
assert aug.max() > 0 and aug.min() < -0.5

METRICS_LABEL_NDX = 0
METRICS_PRED_NDX = 1
METRICS_LOSS_NDX = 2
METRICS_SIZE = 3


def computeBatchLoss(model, batch_ndx, batch_tup, batch_size, metrics_g):
    input_t, label_t = batch_tup

    input_g = input_t.to(device, non_blocking=True)
    label_g = label_t.to(device, non_blocking=True)

    logits_g, probability_g = model(input_g)

    loss_func = nn.CrossEntropyLoss(reduction='none')
    loss_g = loss_func(
        logits_g,
        label_g[:, 1],
    )
    start_ndx = batch_ndx * batch_size
    end_ndx = start_ndx + label_t.size(0)

    metrics_g[METRICS_LABEL_NDX, start_ndx:end_ndx] = label_g[:, 1]
    metrics_g[METRICS_PRED_NDX, start_ndx:end_ndx] = probability_g[:, 1]
    metrics_g[METRICS_LOSS_NDX, start_ndx:end_ndx] = loss_g

    return loss_g.mean()


def logMetrics(epoch_ndx, mode_str, metrics_t, classificationThreshold=0.5):
    negLabel_mask = metrics_t[METRICS_LABEL_NDX] <= classificationThreshold
    negPred_mask = metrics_t[METRICS_PRED_NDX] <= classificationThreshold

    posLabel_mask = ~negLabel_mask
    posPred_mask = ~negPred_mask

    neg_count = int(negLabel_mask.sum())
    pos_count = int(posLabel_mask.sum())

    trueNeg_count = neg_correct = int((negLabel_mask & negPred_mask).sum())
    truePos_count = pos_correct = int((posLabel_mask & posPred_mask).sum())

    falsePos_count = neg_count - neg_correct
    falseNeg_count = pos_count - pos_correct

    metrics_dict = {}
    metrics_dict['loss/all'] = metrics_t[METRICS_LOSS_NDX].mean()
    metrics_dict['loss/neg'] = metrics_t[METRICS_LOSS_NDX, negLabel_mask].mean()
    metrics_dict['loss/pos'] = metrics_t[METRICS_LOSS_NDX, posLabel_mask].mean()

    metrics_dict['correct/all'] = (pos_correct + neg_correct) / metrics_t.shape[1] * 100
    metrics_dict['correct/neg'] = (neg_correct) / neg_count * 100
    metrics_dict['correct/pos'] = (pos_correct) / pos_count * 100

    precision = metrics_dict['pr/precision'] = \
        truePos_count / np.float32(truePos_count + falsePos_count)
    recall = metrics_dict['pr/recall'] = \
        truePos_count / np.float32(truePos_count + falseNeg_count)

    metrics_dict['pr/f1_score'] = \
        2 * (precision * recall) / (precision + recall)

    print(("E{} {:8} {loss/all:.4f} loss, "
           + "{correct/all:-5.1f}% correct, "
           + "{pr/precision:.4f} precision, "
           + "{pr/recall:.4f} recall, "
           + "{pr/f1_score:.4f} f1 score"
           ).format(epoch_ndx, mode_str, **metrics_dict))
    print(("E{} {:8} {loss/neg:.4f} loss, "
           + "{correct/neg:-5.1f}% correct ({neg_correct:} of {neg_count:})"
           ).format(epoch_ndx, mode_str + '_neg', neg_correct=neg_correct, neg_count=neg_count, **metrics_dict))
    return metrics_dict


# training: candidates with the label as a one-hot pair, as LunaDataset returns it
def batches(batch_size, augment):
    order = list(range(len(chunks)))
    random.shuffle(order)
    for s in range(0, len(order), batch_size):
        idx = order[s:s + batch_size]
        xs = [getCtAugmentedCandidate({'flip': True, 'noise': 0.025} if augment else {}, chunks[i][0])[0]
              for i in idx]
        labels = torch.tensor([[not chunks[i][1], chunks[i][1]] for i in idx], dtype=torch.long)
        yield torch.stack(xs), labels


optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.99)
batch_size = 8
for epoch_ndx in range(1, 6):
    model.train()
    trnMetrics_g = torch.zeros(METRICS_SIZE, len(chunks), device=device)
    for batch_ndx, batch_tup in enumerate(batches(batch_size, augment=True)):
        optimizer.zero_grad()
        loss_var = computeBatchLoss(model, batch_ndx, batch_tup, batch_size, trnMetrics_g)
        loss_var.backward()
        optimizer.step()
    metrics = logMetrics(epoch_ndx, 'trn', trnMetrics_g.to('cpu').detach())
model.eval()
with torch.no_grad():
    valMetrics_g = torch.zeros(METRICS_SIZE, len(chunks), device=device)
    for batch_ndx, batch_tup in enumerate(batches(batch_size, augment=False)):
        computeBatchLoss(model, batch_ndx, batch_tup, batch_size, valMetrics_g)
    metrics = logMetrics(epoch_ndx, 'val', valMetrics_g.to('cpu'))
assert isinstance(metrics['pr/precision'], np.float32)
assert valMetrics_g[METRICS_LABEL_NDX].sum() == 24 and metrics['correct/all'] > 80 and metrics['pr/f1_score'] > 0.8, metrics
assert metrics['loss/all'].dim() == 0


# ---- util/unet.py
class UNet(nn.Module):
    def __init__(self, in_channels=1, n_classes=2, depth=5, wf=6, padding=False,
                 batch_norm=False, up_mode='upconv'):
        super(UNet, self).__init__()
        assert up_mode in ('upconv', 'upsample')
        self.padding = padding
        self.depth = depth
        prev_channels = in_channels
        self.down_path = nn.ModuleList()
        for i in range(depth):
            self.down_path.append(UNetConvBlock(prev_channels, 2**(wf+i),
                                                padding, batch_norm))
            prev_channels = 2**(wf+i)

        self.up_path = nn.ModuleList()
        for i in reversed(range(depth - 1)):
            self.up_path.append(UNetUpBlock(prev_channels, 2**(wf+i), up_mode,
                                            padding, batch_norm))
            prev_channels = 2**(wf+i)

        self.last = nn.Conv2d(prev_channels, n_classes, kernel_size=1)

    def forward(self, x):
        blocks = []
        for i, down in enumerate(self.down_path):
            x = down(x)
            if i != len(self.down_path)-1:
                blocks.append(x)
                x = F.avg_pool2d(x, 2)

        for i, up in enumerate(self.up_path):
            x = up(x, blocks[-i-1])

        return self.last(x)


class UNetConvBlock(nn.Module):
    def __init__(self, in_size, out_size, padding, batch_norm):
        super(UNetConvBlock, self).__init__()
        block = []

        block.append(nn.Conv2d(in_size, out_size, kernel_size=3,
                               padding=int(padding)))
        block.append(nn.ReLU())
        if batch_norm:
            block.append(nn.BatchNorm2d(out_size))

        block.append(nn.Conv2d(out_size, out_size, kernel_size=3,
                               padding=int(padding)))
        block.append(nn.ReLU())
        if batch_norm:
            block.append(nn.BatchNorm2d(out_size))

        self.block = nn.Sequential(*block)

    def forward(self, x):
        out = self.block(x)
        return out


class UNetUpBlock(nn.Module):
    def __init__(self, in_size, out_size, up_mode, padding, batch_norm):
        super(UNetUpBlock, self).__init__()
        if up_mode == 'upconv':
            self.up = nn.ConvTranspose2d(in_size, out_size, kernel_size=2,
                                         stride=2)
        elif up_mode == 'upsample':
            self.up = nn.Sequential(nn.Upsample(mode='bilinear', scale_factor=2),
                                    nn.Conv2d(in_size, out_size, kernel_size=1))

        self.conv_block = UNetConvBlock(in_size, out_size, padding, batch_norm)

    def center_crop(self, layer, target_size):
        _, _, layer_height, layer_width = layer.size()
        diff_y = (layer_height - target_size[0]) // 2
        diff_x = (layer_width - target_size[1]) // 2
        return layer[:, :, diff_y:(diff_y + target_size[0]), diff_x:(diff_x + target_size[1])]

    def forward(self, x, bridge):
        up = self.up(x)
        crop1 = self.center_crop(bridge, up.shape[2:])
        out = torch.cat([up, crop1], 1)
        out = self.conv_block(out)

        return out


# the paper's unpadded U-Net shrinks the output (572 -> 388); padding=False at toy size
unet = UNet(in_channels=1, n_classes=2, depth=3, wf=2)
assert unet(torch.randn(1, 1, 44, 44)).shape == (1, 2, 4, 4)
unet = UNet(in_channels=1, n_classes=1, depth=3, wf=2, up_mode='upsample', padding=True)
assert unet(torch.randn(1, 1, 16, 16)).shape == (1, 1, 16, 16)


# ---- p2ch13/model.py
class UNetWrapper(nn.Module):
    def __init__(self, **kwargs):
        super().__init__()

        self.input_batchnorm = nn.BatchNorm2d(kwargs['in_channels'])
        self.unet = UNet(**kwargs)
        self.final = nn.Sigmoid()

        self._init_weights()

    def _init_weights(self):
        init_set = {
            nn.Conv2d,
            nn.Conv3d,
            nn.ConvTranspose2d,
            nn.ConvTranspose3d,
            nn.Linear,
        }
        for m in self.modules():
            if type(m) in init_set:
                nn.init.kaiming_normal_(
                    m.weight.data, mode='fan_out', nonlinearity='relu', a=0
                )
                if m.bias is not None:
                    fan_in, fan_out = \
                        nn.init._calculate_fan_in_and_fan_out(m.weight.data)
                    bound = 1 / math.sqrt(fan_out)
                    nn.init.normal_(m.bias, -bound, bound)

    def forward(self, input_batch):
        bn_output = self.input_batchnorm(input_batch)
        un_output = self.unet(bn_output)
        fn_output = self.final(un_output)
        return fn_output


class SegmentationAugmentation(nn.Module):
    def __init__(
            self, flip=None, offset=None, scale=None, rotate=None, noise=None
    ):
        super().__init__()

        self.flip = flip
        self.offset = offset
        self.scale = scale
        self.rotate = rotate
        self.noise = noise

    def forward(self, input_g, label_g):
        transform_t = self._build2dTransformMatrix()
        transform_t = transform_t.expand(input_g.shape[0], -1, -1)
        transform_t = transform_t.to(input_g.device, torch.float32)
        affine_t = F.affine_grid(transform_t[:, :2],
                                 input_g.size(), align_corners=False)

        augmented_input_g = F.grid_sample(input_g,
                                          affine_t, padding_mode='border',
                                          align_corners=False)
        augmented_label_g = F.grid_sample(label_g.to(torch.float32),
                                          affine_t, padding_mode='border',
                                          align_corners=False)

        if self.noise:
            noise_t = torch.randn_like(augmented_input_g)
            noise_t *= self.noise

            augmented_input_g += noise_t

        return augmented_input_g, augmented_label_g > 0.5

    def _build2dTransformMatrix(self):
        transform_t = torch.eye(3)

        for i in range(2):
            if self.flip:
                if random.random() > 0.5:
                    transform_t[i, i] *= -1

            if self.offset:
                offset_float = self.offset
                random_float = (random.random() * 2 - 1)
                transform_t[2, i] = offset_float * random_float

            if self.scale:
                scale_float = self.scale
                random_float = (random.random() * 2 - 1)
                transform_t[i, i] *= 1.0 + scale_float * random_float

        if self.rotate:
            angle_rad = random.random() * math.pi * 2
            s = math.sin(angle_rad)
            c = math.cos(angle_rad)

            rotation_t = torch.tensor([
                [c, -s, 0],
                [s, c, 0],
                [0, 0, 1]])

            transform_t @= rotation_t

        return transform_t


def diceLoss(prediction_g, label_g, epsilon=1):
    diceLabel_g = label_g.sum(dim=[1, 2, 3])
    dicePrediction_g = prediction_g.sum(dim=[1, 2, 3])
    diceCorrect_g = (prediction_g * label_g).sum(dim=[1, 2, 3])

    diceRatio_g = (2 * diceCorrect_g + epsilon) \
        / (dicePrediction_g + diceLabel_g + epsilon)

    return 1 - diceRatio_g


perfect = torch.zeros(2, 1, 8, 8)
perfect[:, :, 2:5, 2:5] = 1
assert torch.allclose(diceLoss(perfect, perfect.bool()), torch.zeros(2))

# slices with a nodule mask, as the segmentation dataset gives them (7 context slices as channels)
def seg_batch(n):
    x = torch.randn(n, 7, 32, 32) * 0.1
    label = torch.zeros(n, 1, 32, 32, dtype=torch.bool)
    for i in range(n):
        r, c = torch.randint(6, 22, (2,)).tolist()
        x[i, :, r:r + 5, c:c + 5] += 1.0
        label[i, 0, r:r + 5, c:c + 5] = True
    return x, label


augmentation_model = SegmentationAugmentation(flip=True, offset=0.03, scale=0.2, rotate=True, noise=25.0 / 1000)
x, label = seg_batch(4)
aug_x, aug_label = augmentation_model(x, label)
assert aug_x.shape == x.shape and aug_label.dtype == torch.bool and aug_label.shape == label.shape
assert 0 < aug_label.sum() < 4 * 32 * 32

segmentation_model = UNetWrapper(in_channels=7, n_classes=1, depth=3, wf=3, padding=True,
                                 batch_norm=True, up_mode='upconv')
optimizer = torch.optim.Adam(segmentation_model.parameters())
METRICS_LOSS_NDX, METRICS_TP_NDX, METRICS_FN_NDX, METRICS_FP_NDX = 1, 7, 8, 9
metrics_g = torch.zeros(10, 8 * 8)
losses = []
for batch_ndx in range(8):
    segmentation_model.train()
    input_g, label_g = seg_batch(8)
    input_g, label_g = augmentation_model(input_g, label_g)
    prediction_g = segmentation_model(input_g)
    diceLoss_g = diceLoss(prediction_g, label_g)
    fnLoss_g = diceLoss(prediction_g * label_g, label_g)
    start_ndx = batch_ndx * 8
    end_ndx = start_ndx + input_g.size(0)
    with torch.no_grad():
        predictionBool_g = (prediction_g[:, 0:1] > 0.5).to(torch.float32)
        tp = (predictionBool_g * label_g).sum(dim=[1, 2, 3])
        fn = ((1 - predictionBool_g) * label_g).sum(dim=[1, 2, 3])
        fp = (predictionBool_g * (~label_g)).sum(dim=[1, 2, 3])
        metrics_g[METRICS_LOSS_NDX, start_ndx:end_ndx] = diceLoss_g
        metrics_g[METRICS_TP_NDX, start_ndx:end_ndx] = tp
        metrics_g[METRICS_FN_NDX, start_ndx:end_ndx] = fn
        metrics_g[METRICS_FP_NDX, start_ndx:end_ndx] = fp
    loss = diceLoss_g.mean() + fnLoss_g.mean() * 8
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(losses)
assert losses[-1] < losses[0]
assert torch.equal(metrics_g[METRICS_TP_NDX, 56:] + metrics_g[METRICS_FN_NDX, 56:], label_g.sum(dim=[1, 2, 3]).float())
assert metrics_g[METRICS_TP_NDX].sum() > 0 and prediction_g.min() >= 0 and prediction_g.max() <= 1
