"""UvA Deep Learning tutorial 10 ("Adversarial attacks", Phillip Lippe), at toy size: a small CNN
trained here on synthetic 3x16x16 images of 6 classes stands in for the pretrained ResNet-34 on
TinyImageNet (torchvision left out; the plots become assertions). What it keeps as written: the
frozen model (p.requires_grad = False), normalisation constants as numpy arrays broadcast with
[None,None] and as torch.FloatTensor(NORM_MEAN)[:,None,None], eval_model with top-1 and top-5
(preds.topk(5, dim=-1)[1] == labels[...,None]).any(dim=-1), the fast gradient sign method
(imgs.clone().requires_grad_(), -torch.gather(log_softmax, 1, labels.unsqueeze(-1)),
torch.sign(inp_imgs.grad), fake_imgs.detach_()), the adversarial patch: place_patch writing
patch_forward(patch) (tanh of an nn.Parameter, so the batch joins the graph) into slices of a
batch at np.random offsets, patch_attack with SGD(momentum=0.8) on [patch] and labels from
torch.zeros(...).fill_(target_class), eval_patch counting torch.logical_and hits, patches saved
with torch.save / torch.load and results to JSON with .item(), and perform_patch_attack."""
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as data

CHECKPOINT_PATH = "saved_models/tutorial10"
os.makedirs(CHECKPOINT_PATH, exist_ok=True)
np.random.seed(42)
torch.manual_seed(42)
device = torch.device("cuda:0") if torch.cuda.is_available() else torch.device("cpu")

NORM_MEAN = np.array([0.485, 0.456, 0.406])
NORM_STD = np.array([0.229, 0.224, 0.225])

# synthetic "TinyImageNet": each class is a colour and a stripe position, normalised as
# transforms.Normalize(mean=NORM_MEAN, std=NORM_STD) would
label_names = ['toaster', 'goldfish', 'school bus', 'lipstick', 'pineapple', 'tabby']
g = torch.Generator().manual_seed(0)
colours = torch.rand(6, 3, generator=g)
def make(n):
    labels = torch.arange(n) % 6
    imgs = torch.rand(n, 3, 16, 16, generator=g) * 0.3
    for i, c in enumerate(labels.tolist()):
        imgs[i, :, 2 * c:2 * c + 4, :] = colours[c][:, None, None]
    imgs = (imgs - torch.tensor(NORM_MEAN, dtype=torch.float32)[:, None, None]) / \
        torch.tensor(NORM_STD, dtype=torch.float32)[:, None, None]
    return data.TensorDataset(imgs, labels)
dataset = make(600)
data_loader = data.DataLoader(dataset, batch_size=32, shuffle=False, drop_last=False)


def get_label_index(lab_str):
    assert lab_str in label_names, f"Label \"{lab_str}\" not found. Check the spelling of the class."
    return label_names.index(lab_str)


# the stand-in for torchvision.models.resnet34(weights='IMAGENET1K_V1'), trained briefly
pretrained_model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((4, 1)), nn.Flatten(),
    nn.Linear(128, 6))
opt = torch.optim.Adam(pretrained_model.parameters(), lr=3e-3)
for epoch in range(4):
    for imgs, labels in data.DataLoader(dataset, batch_size=32, shuffle=True):
        loss = F.cross_entropy(pretrained_model(imgs), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()

pretrained_model = pretrained_model.to(device)
pretrained_model.eval()
# No gradients needed for the network
for p in pretrained_model.parameters():
    p.requires_grad = False


def eval_model(dataset_loader, img_func=None):
    tp, tp_5, counter = 0., 0., 0.
    for imgs, labels in dataset_loader:
        imgs = imgs.to(device)
        labels = labels.to(device)
        if img_func is not None:
            imgs = img_func(imgs, labels)
        with torch.no_grad():
            preds = pretrained_model(imgs)
        tp += (preds.argmax(dim=-1) == labels).sum()
        tp_5 += (preds.topk(5, dim=-1)[1] == labels[..., None]).any(dim=-1).sum()
        counter += preds.shape[0]
    acc = tp.float().item()/counter
    top5 = tp_5.float().item()/counter
    print(f"Top-1 error: {(100.0 * (1 - acc)):4.2f}%")
    print(f"Top-5 error: {(100.0 * (1 - top5)):4.2f}%")
    return acc, top5


acc, top5 = eval_model(data_loader)
assert acc > 0.9 and top5 >= acc


def prediction_to_show(img, label, pred, K=5):   # show_prediction's numbers, without the plot
    if isinstance(img, torch.Tensor):
        img = img.cpu().permute(1, 2, 0).numpy()
        img = (img * NORM_STD[None, None]) + NORM_MEAN[None, None]
        img = np.clip(img, a_min=0.0, a_max=1.0)
        label = label.item()
    if abs(pred.sum().item() - 1.0) > 1e-4:
        pred = torch.softmax(pred, dim=-1)
    topk_vals, topk_idx = pred.topk(K, dim=-1)
    topk_vals, topk_idx = topk_vals.cpu().numpy(), topk_idx.cpu().numpy()
    return img, label, topk_vals, topk_idx


exmp_batch, label_batch = next(iter(data_loader))
with torch.no_grad():
    preds = pretrained_model(exmp_batch.to(device))
img, label, vals, idx = prediction_to_show(exmp_batch[1], label_batch[1], preds[1])
assert img.shape == (16, 16, 3) and img.dtype == np.float64 and 0 <= img.min() and img.max() <= 1
assert idx[0] == label == 1 and vals.shape == (5,) and np.all(np.diff(vals) <= 0)


def fast_gradient_sign_method(model, imgs, labels, epsilon=0.02):
    # Determine prediction of the model
    inp_imgs = imgs.clone().requires_grad_()
    preds = model(inp_imgs.to(device))
    preds = F.log_softmax(preds, dim=-1)
    # Calculate loss by NLL
    loss = -torch.gather(preds, 1, labels.to(device).unsqueeze(dim=-1))
    loss.sum().backward()
    # Update image to adversarial example as written above
    noise_grad = torch.sign(inp_imgs.grad.to(imgs.device))
    fake_imgs = imgs + epsilon * noise_grad
    fake_imgs.detach_()
    return fake_imgs, noise_grad


adv_imgs, noise_grad = fast_gradient_sign_method(pretrained_model, exmp_batch, label_batch, epsilon=0.02)
assert not adv_imgs.requires_grad and set(noise_grad.unique().tolist()) <= {-1., 0., 1.}
assert torch.allclose((adv_imgs - exmp_batch).abs().max(), torch.tensor(0.02))
with torch.no_grad():
    adv_preds = pretrained_model(adv_imgs.to(device))
# the loss of the true class goes up for every image
nll = lambda p: -F.log_softmax(p, -1).gather(1, label_batch[:, None]).squeeze(1)
assert bool((nll(adv_preds) > nll(preds)).all())
acc_adv, _ = eval_model(data_loader, img_func=lambda x, y: fast_gradient_sign_method(pretrained_model, x, y, epsilon=0.5)[0])
print("accuracy under FGSM", acc_adv)
assert acc_adv < acc - 0.2

TENSOR_MEANS, TENSOR_STD = torch.FloatTensor(NORM_MEAN)[:, None, None], torch.FloatTensor(NORM_STD)[:, None, None]


def patch_forward(patch):
    # Map patch values from [-infty,infty] to ImageNet min and max
    patch = (torch.tanh(patch) + 1 - 2 * TENSOR_MEANS) / (2 * TENSOR_STD)
    return patch


def place_patch(img, patch):
    for i in range(img.shape[0]):
        h_offset = np.random.randint(0, img.shape[2]-patch.shape[1]-1)
        w_offset = np.random.randint(0, img.shape[3]-patch.shape[2]-1)
        img[i, :, h_offset:h_offset+patch.shape[1], w_offset:w_offset+patch.shape[2]] = patch_forward(patch)
    return img


def eval_patch(model, patch, val_loader, target_class):
    model.eval()
    tp, tp_5, counter = 0., 0., 0.
    with torch.no_grad():
        for img, img_labels in val_loader:
            # For stability, place the patch at 4 random locations per image, and average the performance
            for _ in range(4):
                patch_img = place_patch(img, patch)
                patch_img = patch_img.to(device)
                img_labels = img_labels.to(device)
                pred = model(patch_img)
                # In the accuracy calculation, we need to exclude the images that are of our target class
                # as we would not "fool" the model into predicting those
                tp += torch.logical_and(pred.argmax(dim=-1) == target_class, img_labels != target_class).sum()
                tp_5 += torch.logical_and((pred.topk(5, dim=-1)[1] == target_class).any(dim=-1), img_labels != target_class).sum()
                counter += (img_labels != target_class).sum()
    acc = tp/counter
    top5 = tp_5/counter
    return acc, top5


def patch_attack(model, target_class, patch_size=64, num_epochs=5):
    # Leave a small set of images out to check generalization
    # In most of our experiments, the performance on the hold-out data points
    # was as good as on the training set. Overfitting was little possible due
    # to the small size of the patches.
    train_set, val_set = torch.utils.data.random_split(dataset, [500, 100])
    train_loader = data.DataLoader(train_set, batch_size=32, shuffle=True, drop_last=True, num_workers=0)
    val_loader = data.DataLoader(val_set, batch_size=32, shuffle=False, drop_last=False, num_workers=0)

    # Create parameter and optimizer
    if not isinstance(patch_size, tuple):
        patch_size = (patch_size, patch_size)
    patch = nn.Parameter(torch.zeros(3, patch_size[0], patch_size[1]), requires_grad=True)
    optimizer = torch.optim.SGD([patch], lr=1e-1, momentum=0.8)
    loss_module = nn.CrossEntropyLoss()

    # Training loop
    for epoch in range(num_epochs):
        for img, _ in train_loader:
            img = place_patch(img, patch)
            img = img.to(device)
            pred = model(img)
            labels = torch.zeros(img.shape[0], device=pred.device, dtype=torch.long).fill_(target_class)
            loss = loss_module(pred, labels)
            optimizer.zero_grad()
            loss.mean().backward()
            optimizer.step()

    # Final validation
    acc, top5 = eval_patch(model, patch, val_loader, target_class)

    return patch.data, {"acc": acc.item(), "top5": top5.item()}


# place_patch puts the parameter's values into the batch, and the batch into the graph
img = exmp_batch[:2].clone()
patch = nn.Parameter(torch.zeros(3, 4, 4))
out = place_patch(img, patch)
assert out is img and img.requires_grad and img.grad_fn is not None
img.sum().backward()
assert torch.allclose(patch.grad, 2 * (1 / (2 * TENSOR_STD)).expand(3, 4, 4))   # d tanh(0) = 1


def save_results(patch_dict):
    result_dict = {cname: {psize: [t.item() if isinstance(t, torch.Tensor) else t
                                   for t in patch_dict[cname][psize]["results"]]
                           for psize in patch_dict[cname]}
                   for cname in patch_dict}
    with open(os.path.join(CHECKPOINT_PATH, "patch_results.json"), "w") as f:
        json.dump(result_dict, f, indent=4)


json_results = {}


def get_patches(class_names, patch_sizes):
    result_dict = dict()

    # Loop over all classes and patch sizes
    for name in class_names:
        result_dict[name] = dict()
        for patch_size in patch_sizes:
            c = label_names.index(name)
            file_name = os.path.join(CHECKPOINT_PATH, f"{name}_{patch_size}_patch.pt")
            # Load patch if pretrained file exists, otherwise start training
            if not os.path.isfile(file_name):
                patch, val_results = patch_attack(pretrained_model, target_class=c, patch_size=patch_size, num_epochs=5)
                print(f"Validation results for {name} and {patch_size}:", val_results)
                torch.save(patch, file_name)
            else:
                patch = torch.load(file_name)
            # Load evaluation results if exist, otherwise manually evaluate the patch
            if name in json_results:
                results = json_results[name][str(patch_size)]
            else:
                results = eval_patch(pretrained_model, patch, data_loader, target_class=c)

            # Store results and the patches in a dict for better access
            result_dict[name][patch_size] = {
                "results": results,
                "patch": patch
            }

    return result_dict


class_names = ['toaster', 'pineapple']
patch_sizes = [4, 8]
patch_dict = get_patches(class_names, patch_sizes)
save_results(patch_dict)
with open(os.path.join(CHECKPOINT_PATH, "patch_results.json")) as f:
    json_results = json.load(f)
print(json_results)
assert sorted(json_results) == ['pineapple', 'toaster'] and sorted(json_results["toaster"]) == ["4", "8"]
big = json_results["pineapple"]["8"]
assert 0 <= big[0] <= big[1] <= 1 and big[0] > 0.3, json_results     # the patch fools the model
# a second call loads the saved patches and the saved results
again = get_patches(class_names, patch_sizes)
assert torch.equal(again['toaster'][4]['patch'], patch_dict['toaster'][4]['patch'])
assert again['toaster'][4]['patch'].shape == (3, 4, 4) and not again['toaster'][4]['patch'].requires_grad
assert again["pineapple"][8]['results'] == big


def perform_patch_attack(patch):
    patch_batch = exmp_batch.clone()
    patch_batch = place_patch(patch_batch, patch)
    with torch.no_grad():
        patch_preds = pretrained_model(patch_batch.to(device))
    return patch_batch, patch_preds


patch_batch, patch_preds = perform_patch_attack(patch_dict["pineapple"][8]['patch'])
fooled = (patch_preds.argmax(-1) == get_label_index('pineapple')).float().mean().item()
print("fooled", fooled)
assert fooled > 0.3 and not torch.equal(patch_batch, exmp_batch)
