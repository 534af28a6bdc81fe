"""mrdbourke/pytorch-deep-learning, 03_pytorch_computer_vision and 04_pytorch_custom_datasets on
small synthetic images: FashionMNISTModelV0 (Flatten + Linear) trained with `train_loss += loss`
and `train_loss /= len(dataloader)` on tensors, print_train_time with timeit's timer, eval_model
returning {"model_name": model.__class__.__name__, "model_loss": loss.item(), ...}, TinyVGG
(FashionMNISTModelV2), make_predictions with torch.stack, random.sample(list(test_data), k=9),
a confusion matrix by hand, saving to a pathlib path and torch.isclose(atol=1e-08, rtol=0.0001);
then the custom-dataset notebook: class folders on disk found with os.scandir (find_classes),
ImageFolderCustom(Dataset) loading files by pathlib glob with a transform (F.interpolate resize
and torch.flip instead of torchvision), train_step/test_step/train returning a results dict."""
import os
import pathlib
import random
from pathlib import Path
from timeit import default_timer as timer
from typing import Dict, List, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(42)
class_names = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
               "Bag", "Ankle boot"]


def make_images(n, seed, channels=1, size=28):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 10, (n,), generator=g)
    X = torch.rand(n, channels, size, size, generator=g) * 0.4
    X[torch.arange(n), :, (y * (size - 8)) // 10 + 4, 3:size - 3] = 1.0
    return X, y


train_data = TensorDataset(*make_images(256, 0))
test_data = TensorDataset(*make_images(96, 1))
test_data.targets = test_data.tensors[1]
BATCH_SIZE = 32
train_dataloader = DataLoader(train_data, batch_size=BATCH_SIZE, shuffle=True)
test_dataloader = DataLoader(test_data, batch_size=BATCH_SIZE, shuffle=False)
print(f"Length of train dataloader: {len(train_dataloader)} batches of {BATCH_SIZE}")
train_features_batch, train_labels_batch = next(iter(train_dataloader))
print(repr((train_features_batch.shape, train_labels_batch.shape)))
random_idx = torch.randint(0, len(train_features_batch), size=[1]).item()
img, label = train_features_batch[random_idx], train_labels_batch[random_idx]
print(f"Image size: {img.shape}", f"Label: {label}, label size: {label.shape}")
flatten_model = nn.Flatten()
x = train_features_batch[0]
output = flatten_model(x)
print(f"Shape before flattening: {x.shape} -> [color_channels, height, width]")
print(f"Shape after flattening: {output.shape} -> [color_channels, height*width]")


class FashionMNISTModelV0(nn.Module):
    def __init__(self, input_shape: int, hidden_units: int, output_shape: int):
        super().__init__()
        self.layer_stack = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=input_shape, out_features=hidden_units),
            nn.Linear(in_features=hidden_units, out_features=output_shape)
        )

    def forward(self, x):
        return self.layer_stack(x)


def accuracy_fn(y_true, y_pred):
    correct = torch.eq(y_true, y_pred).sum().item()
    return (correct / len(y_pred)) * 100


def print_train_time(start: float, end: float, device: torch.device = None):
    total_time = end - start
    print(f"Train time on {device}: {'%.3f' % 0.0 if total_time >= 0 else 'negative'} seconds")
    return total_time


torch.manual_seed(42)
model_0 = FashionMNISTModelV0(input_shape=784, hidden_units=10, output_shape=len(class_names))
model_0.to("cpu")
print(repr(model_0))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(params=model_0.parameters(), lr=0.1)
train_time_start_on_cpu = timer()
for epoch in range(3):
    print(f"Epoch: {epoch}\n-------")
    train_loss = 0
    for batch, (X, y) in enumerate(train_dataloader):
        model_0.train()
        y_pred = model_0(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if batch % 4 == 0:
            print(f"Looked at {batch * len(X)}/{len(train_dataloader.dataset)} samples")
    train_loss /= len(train_dataloader)
    test_loss, test_acc = 0, 0
    model_0.eval()
    with torch.inference_mode():
        for X, y in test_dataloader:
            test_pred = model_0(X)
            test_loss += loss_fn(test_pred, y)
            test_acc += accuracy_fn(y_true=y, y_pred=test_pred.argmax(dim=1))
        test_loss /= len(test_dataloader)
        test_acc /= len(test_dataloader)
    print(f"\nTrain loss: {train_loss:.5f} | Test loss: {test_loss:.5f}, Test acc: {test_acc:.2f}%\n")
print(train_loss.requires_grad, type(test_acc).__name__)
train_time_end_on_cpu = timer()
total_train_time_model_0 = print_train_time(start=train_time_start_on_cpu, end=train_time_end_on_cpu,
                                            device=str(next(model_0.parameters()).device))


def eval_model(model: torch.nn.Module, data_loader: torch.utils.data.DataLoader,
               loss_fn: torch.nn.Module, accuracy_fn):
    loss, acc = 0, 0
    model.eval()
    with torch.inference_mode():
        for X, y in data_loader:
            y_pred = model(X)
            loss += loss_fn(y_pred, y)
            acc += accuracy_fn(y_true=y, y_pred=y_pred.argmax(dim=1))
        loss /= len(data_loader)
        acc /= len(data_loader)
    return {"model_name": model.__class__.__name__, "model_loss": loss.item(), "model_acc": acc}


model_0_results = eval_model(model=model_0, data_loader=test_dataloader, loss_fn=loss_fn,
                             accuracy_fn=accuracy_fn)
print(model_0_results)


class FashionMNISTModelV2(nn.Module):
    def __init__(self, input_shape: int, hidden_units: int, output_shape: int):
        super().__init__()
        self.block_1 = nn.Sequential(
            nn.Conv2d(in_channels=input_shape, out_channels=hidden_units, kernel_size=3, stride=1,
                      padding=1),
            nn.ReLU(),
            nn.Conv2d(in_channels=hidden_units, out_channels=hidden_units, kernel_size=3, stride=1,
                      padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2)
        )
        self.block_2 = nn.Sequential(
            nn.Conv2d(hidden_units, hidden_units, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(hidden_units, hidden_units, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2)
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=hidden_units * 7 * 7, out_features=output_shape)
        )

    def forward(self, x: torch.Tensor):
        x = self.block_1(x)
        x = self.block_2(x)
        x = self.classifier(x)
        return x


torch.manual_seed(42)
model_2 = FashionMNISTModelV2(input_shape=1, hidden_units=10, output_shape=len(class_names)).to(device)
print(model_2)
rand_image_tensor = torch.randn(size=(1, 28, 28))
print(model_2(rand_image_tensor.unsqueeze(dim=0).to(device)).shape)
conv_layer = nn.Conv2d(in_channels=3, out_channels=10, kernel_size=3, stride=1, padding=0)
test_image = torch.randn(size=(32, 3, 64, 64))[0]
print(conv_layer(test_image).shape, conv_layer.weight.shape, conv_layer.bias.shape)
max_pool_layer = nn.MaxPool2d(kernel_size=2)
print(max_pool_layer(conv_layer(test_image.unsqueeze(dim=0))).shape)
random_tensor = torch.randn(size=(1, 1, 2, 2))
print(f"Random tensor:\n{random_tensor}")
print(f"Max pool tensor:\n{nn.MaxPool2d(kernel_size=2)(random_tensor)}")
optimizer = torch.optim.SGD(params=model_2.parameters(), lr=0.1)
for epoch in range(2):
    model_2.train()
    for X, y in train_dataloader:
        loss = loss_fn(model_2(X), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
model_2_results = eval_model(model=model_2, data_loader=test_dataloader, loss_fn=loss_fn,
                             accuracy_fn=accuracy_fn)
print(model_2_results["model_name"], round(model_2_results["model_loss"], 3))


def make_predictions(model: torch.nn.Module, data: list, device: torch.device = device):
    pred_probs = []
    model.eval()
    with torch.inference_mode():
        for sample in data:
            sample = torch.unsqueeze(sample, dim=0).to(device)
            pred_logit = model(sample)
            pred_prob = torch.softmax(pred_logit.squeeze(), dim=0)
            pred_probs.append(pred_prob.cpu())
    return torch.stack(pred_probs)


random.seed(42)
test_samples = []
test_labels = []
for sample, label in random.sample(list(test_data), k=9):
    test_samples.append(sample)
    test_labels.append(label)
print(f"Test sample image shape: {test_samples[0].shape}\nTest sample label: {test_labels[0]} "
      f"({class_names[test_labels[0]]})")
pred_probs = make_predictions(model=model_2, data=test_samples)
print(pred_probs[:2])
pred_classes = pred_probs.argmax(dim=1)
print(repr((test_labels[:3], pred_classes)))
for i, sample in enumerate(test_samples[:3]):
    pred_label = class_names[pred_classes[i]]
    truth_label = class_names[test_labels[i]]
    print(f"Pred: {pred_label} | Truth: {truth_label}")
y_preds = []
model_2.eval()
with torch.inference_mode():
    for X, y in test_dataloader:
        X, y = X.to(device), y.to(device)
        y_logit = model_2(X)
        y_pred = torch.softmax(y_logit, dim=1).argmax(dim=1)
        y_preds.append(y_pred.cpu())
y_pred_tensor = torch.cat(y_preds)
confmat_tensor = torch.zeros(len(class_names), len(class_names), dtype=torch.int64)
confmat_tensor.index_put_((test_data.targets, y_pred_tensor), torch.tensor(1), accumulate=True)
print(confmat_tensor.numpy().trace(), confmat_tensor.sum(dim=0))
MODEL_PATH = Path("models")
MODEL_PATH.mkdir(parents=True, exist_ok=True)
MODEL_SAVE_PATH = MODEL_PATH / "03_pytorch_computer_vision_model_2.pth"
print(f"Saving model to: {MODEL_SAVE_PATH}")
torch.save(obj=model_2.state_dict(), f=MODEL_SAVE_PATH)
loaded_model_2 = FashionMNISTModelV2(input_shape=1, hidden_units=10, output_shape=10)
loaded_model_2.load_state_dict(torch.load(f=MODEL_SAVE_PATH))
loaded_model_2 = loaded_model_2.to(device)
loaded_model_2_results = eval_model(model=loaded_model_2, data_loader=test_dataloader,
                                    loss_fn=loss_fn, accuracy_fn=accuracy_fn)
print(torch.isclose(torch.tensor(model_2_results["model_loss"]),
                    torch.tensor(loaded_model_2_results["model_loss"]), atol=1e-08, rtol=0.0001))

image_path = Path("data") / "pizza_steak_sushi"
rng = np.random.default_rng(0)
for split, n in (("train", 12), ("test", 4)):
    for k, name in enumerate(["pizza", "steak", "sushi"]):
        folder = image_path / split / name
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            img = rng.integers(0, 90, (48, 48, 3)).astype(np.uint8)
            img[:, :, k] = 230
            np.save(folder / f"{i}.npy", img)
train_dir, test_dir = image_path / "train", image_path / "test"


def walk_through_dir(dir_path):
    for dirpath, dirnames, filenames in sorted(os.walk(dir_path)):
        print(f"There are {len(dirnames)} directories and {len(filenames)} images in '{dirpath}'.")


walk_through_dir(image_path)
image_path_list = sorted(image_path.glob("*/*/*.npy"))
print(image_path_list[0].parent.stem, len(image_path_list))
class_names_found = sorted([entry.name for entry in list(os.scandir(image_path / "train"))])
print(f"Class names found: {class_names_found}")


def find_classes(directory: str) -> Tuple[List[str], Dict[str, int]]:
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any classes in {directory}.")
    class_to_idx = {cls_name: i for i, cls_name in enumerate(classes)}
    return classes, class_to_idx


print(find_classes(train_dir))


def train_transform(img):
    """Resize((64, 64)), RandomHorizontalFlip(p=0.5), ToTensor(): HWC uint8 -> CHW float."""
    x = torch.from_numpy(img).permute(2, 0, 1).float().div(255)
    x = F.interpolate(x.unsqueeze(0), size=(64, 64), mode="bilinear", align_corners=False)[0]
    return torch.flip(x, dims=[2]) if torch.rand(1).item() < 0.5 else x


def test_transform(img):
    x = torch.from_numpy(img).permute(2, 0, 1).float().div(255)
    return F.interpolate(x.unsqueeze(0), size=(64, 64), mode="nearest").squeeze(0)


class ImageFolderCustom(Dataset):
    def __init__(self, targ_dir: str, transform=None) -> None:
        self.paths = sorted(pathlib.Path(targ_dir).glob("*/*.npy"))
        self.transform = transform
        self.classes, self.class_to_idx = find_classes(targ_dir)

    def load_image(self, index: int) -> np.ndarray:
        return np.load(self.paths[index])

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> Tuple[torch.Tensor, int]:
        img = self.load_image(index)
        class_name = self.paths[index].parent.name
        class_idx = self.class_to_idx[class_name]
        if self.transform:
            return self.transform(img), class_idx
        else:
            return img, class_idx


train_data_custom = ImageFolderCustom(targ_dir=train_dir, transform=train_transform)
test_data_custom = ImageFolderCustom(targ_dir=test_dir, transform=test_transform)
print(repr((len(train_data_custom), len(test_data_custom))))
print(train_data_custom.classes, train_data_custom.class_to_idx)
img, label = train_data_custom[0]
img_permute = img.permute(1, 2, 0)
print(f"Original shape: {img.shape} -> [color_channels, height, width]")
print(f"Image permute shape: {img_permute.shape} -> [height, width, color_channels]")
train_dataloader_custom = DataLoader(dataset=train_data_custom, batch_size=8, num_workers=0,
                                     shuffle=True)
test_dataloader_custom = DataLoader(dataset=test_data_custom, batch_size=8, num_workers=0,
                                    shuffle=False)
img_custom, label_custom = next(iter(train_dataloader_custom))
print(f"Image shape: {img_custom.shape} -> [batch_size, color_channels, height, width]")
print(f"Label shape: {label_custom.shape}")


class TinyVGG(nn.Module):
    def __init__(self, input_shape: int, hidden_units: int, output_shape: int) -> None:
        super().__init__()
        self.conv_block_1 = nn.Sequential(
            nn.Conv2d(in_channels=input_shape, out_channels=hidden_units, kernel_size=3, stride=1,
                      padding=1),
            nn.ReLU(),
            nn.Conv2d(in_channels=hidden_units, out_channels=hidden_units, kernel_size=3, stride=1,
                      padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2)
        )
        self.conv_block_2 = nn.Sequential(
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2)
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=hidden_units * 16 * 16, out_features=output_shape)
        )

    def forward(self, x: torch.Tensor):
        return self.classifier(self.conv_block_2(self.conv_block_1(x)))


torch.manual_seed(42)
model_0 = TinyVGG(input_shape=3, hidden_units=5, output_shape=len(train_data_custom.classes)).to(device)
img_batch, label_batch = next(iter(train_dataloader_custom))
img_single, label_single = img_batch[0].unsqueeze(dim=0), label_batch[0]
print(f"Single image shape: {img_single.shape}\n")
model_0.eval()
with torch.inference_mode():
    pred = model_0(img_single.to(device))
print(f"Output logits:\n{pred}\n")
print(f"Output prediction probabilities:\n{torch.softmax(pred, dim=1)}\n")
print(f"Output prediction label:\n{torch.argmax(torch.softmax(pred, dim=1), dim=1)}\n")
print(f"Actual label:\n{label_single}")


def train_step(model, dataloader, loss_fn, optimizer):
    model.train()
    train_loss, train_acc = 0, 0
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        y_pred_class = torch.argmax(torch.softmax(y_pred, dim=1), dim=1)
        train_acc += (y_pred_class == y).sum().item() / len(y_pred)
    return train_loss / len(dataloader), train_acc / len(dataloader)


def test_step(model, dataloader, loss_fn):
    model.eval()
    test_loss, test_acc = 0, 0
    with torch.inference_mode():
        for batch, (X, y) in enumerate(dataloader):
            X, y = X.to(device), y.to(device)
            test_pred_logits = model(X)
            loss = loss_fn(test_pred_logits, y)
            test_loss += loss.item()
            test_pred_labels = test_pred_logits.argmax(dim=1)
            test_acc += ((test_pred_labels == y).sum().item() / len(test_pred_labels))
    return test_loss / len(dataloader), test_acc / len(dataloader)


def train(model, train_dataloader, test_dataloader, optimizer, loss_fn=nn.CrossEntropyLoss(),
          epochs=5):
    results = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    for epoch in range(epochs):
        train_loss, train_acc = train_step(model=model, dataloader=train_dataloader,
                                           loss_fn=loss_fn, optimizer=optimizer)
        test_loss, test_acc = test_step(model=model, dataloader=test_dataloader, loss_fn=loss_fn)
        print(f"Epoch: {epoch+1} | train_loss: {train_loss:.4f} | train_acc: {train_acc:.4f} | "
              f"test_loss: {test_loss:.4f} | test_acc: {test_acc:.4f}")
        results["train_loss"].append(train_loss.item() if isinstance(train_loss, torch.Tensor) else train_loss)
        results["train_acc"].append(train_acc.item() if isinstance(train_acc, torch.Tensor) else train_acc)
        results["test_loss"].append(test_loss.item() if isinstance(test_loss, torch.Tensor) else test_loss)
        results["test_acc"].append(test_acc.item() if isinstance(test_acc, torch.Tensor) else test_acc)
    return results


torch.manual_seed(42)
optimizer = torch.optim.Adam(params=model_0.parameters(), lr=0.01)
start_time = timer()
model_0_results = train(model=model_0, train_dataloader=train_dataloader_custom,
                        test_dataloader=test_dataloader_custom, optimizer=optimizer,
                        loss_fn=nn.CrossEntropyLoss(), epochs=4)
end_time = timer()
print(model_0_results.keys(), end_time > start_time)
assert model_0_results["test_acc"][-1] > 0.5
