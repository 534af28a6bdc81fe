"""mrdbourke/pytorch-deep-learning (Zero to Mastery), 05 going modular: going_modular/engine.py
(train_step / test_step / train returning {"train_loss": [...], ...} typed with Tuple/Dict/List,
loss.item() accumulation, torch.argmax(torch.softmax(y_pred, dim=1), dim=1), (y_pred_class ==
y).sum().item()/len(y_pred)), model_builder.py's TinyVGG (padding=0 convs and a
hidden_units*13*13 classifier for 64x64 images), utils.save_model (Path.mkdir, the .pth/.pt
assert, torch.save(obj=model.state_dict(), f=...)), helper_functions.set_seeds
(torch.manual_seed + torch.cuda.manual_seed), and data_setup.create_dataloaders' DataLoader(...,
shuffle=True, num_workers=0, pin_memory=True) over a synthetic 3-class pizza/steak/sushi image
set (a TensorDataset of 3x64x64 float images) instead of ImageFolder."""
from pathlib import Path
from typing import Dict, List, Tuple

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def set_seeds(seed: int = 42):
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


def make_images(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 3, (n,), generator=g)
    X = torch.rand(n, 3, 64, 64, generator=g) * 0.5
    X[torch.arange(n), y] += 0.5          # the class lights up one colour channel
    return X, y


def create_dataloaders(batch_size: int, num_workers: int = 0):
    class_names = ["pizza", "steak", "sushi"]
    train_data = TensorDataset(*make_images(48, 0))
    test_data = TensorDataset(*make_images(24, 1))
    train_dataloader = DataLoader(train_data, batch_size=batch_size, shuffle=True,
                                  num_workers=num_workers, pin_memory=True)
    test_dataloader = DataLoader(test_data, batch_size=batch_size, shuffle=False,
                                 num_workers=num_workers, pin_memory=True)
    return train_dataloader, test_dataloader, class_names


class TinyVGG(nn.Module):
    def __init__(self, input_shape: int, hidden_units: int, output_shape: int) -> None:
        super().__init__()
        self.conv_block_1 = nn.Sequential(
            nn.Conv2d(in_channels=input_shape,
                      out_channels=hidden_units,
                      kernel_size=3,
                      stride=1,
                      padding=0),
            nn.ReLU(),
            nn.Conv2d(in_channels=hidden_units,
                      out_channels=hidden_units,
                      kernel_size=3,
                      stride=1,
                      padding=0),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2,
                         stride=2)
        )
        self.conv_block_2 = nn.Sequential(
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=0),
            nn.ReLU(),
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=0),
            nn.ReLU(),
            nn.MaxPool2d(2)
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=hidden_units * 13 * 13,
                      out_features=output_shape)
        )

    def forward(self, x: torch.Tensor):
        x = self.conv_block_1(x)
        x = self.conv_block_2(x)
        x = self.classifier(x)
        return x


def train_step(model: torch.nn.Module,
               dataloader: torch.utils.data.DataLoader,
               loss_fn: torch.nn.Module,
               optimizer: torch.optim.Optimizer,
               device: torch.device) -> Tuple[float, float]:
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
    train_loss = train_loss / len(dataloader)
    train_acc = train_acc / len(dataloader)
    return train_loss, train_acc


def test_step(model: torch.nn.Module,
              dataloader: torch.utils.data.DataLoader,
              loss_fn: torch.nn.Module,
              device: torch.device) -> Tuple[float, float]:
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
    test_loss = test_loss / len(dataloader)
    test_acc = test_acc / len(dataloader)
    return test_loss, test_acc


def train(model: torch.nn.Module,
          train_dataloader: torch.utils.data.DataLoader,
          test_dataloader: torch.utils.data.DataLoader,
          optimizer: torch.optim.Optimizer,
          loss_fn: torch.nn.Module,
          epochs: int,
          device: torch.device) -> Dict[str, List]:
    results = {"train_loss": [],
               "train_acc": [],
               "test_loss": [],
               "test_acc": []}
    model.to(device)
    for epoch in range(epochs):
        train_loss, train_acc = train_step(model=model,
                                           dataloader=train_dataloader,
                                           loss_fn=loss_fn,
                                           optimizer=optimizer,
                                           device=device)
        test_loss, test_acc = test_step(model=model,
                                        dataloader=test_dataloader,
                                        loss_fn=loss_fn,
                                        device=device)
        print(f"Epoch: {epoch+1} | "
              f"train_loss: {train_loss:.4f} | "
              f"train_acc: {train_acc:.4f} | "
              f"test_loss: {test_loss:.4f} | "
              f"test_acc: {test_acc:.4f}")
        results["train_loss"].append(train_loss)
        results["train_acc"].append(train_acc)
        results["test_loss"].append(test_loss)
        results["test_acc"].append(test_acc)
    return results


def save_model(model: torch.nn.Module,
               target_dir: str,
               model_name: str):
    target_dir_path = Path(target_dir)
    target_dir_path.mkdir(parents=True,
                          exist_ok=True)
    assert model_name.endswith(".pth") or model_name.endswith(".pt"), \
        "model_name should end with '.pt' or '.pth'"
    model_save_path = target_dir_path / model_name
    print(f"[INFO] Saving model to: {model_save_path}")
    torch.save(obj=model.state_dict(),
               f=model_save_path)
    return model_save_path


NUM_EPOCHS = 4
BATCH_SIZE = 16
HIDDEN_UNITS = 8
LEARNING_RATE = 0.01
device = "cuda" if torch.cuda.is_available() else "cpu"
train_dataloader, test_dataloader, class_names = create_dataloaders(batch_size=BATCH_SIZE)
set_seeds()
model = TinyVGG(input_shape=3,
                hidden_units=HIDDEN_UNITS,
                output_shape=len(class_names)).to(device)
loss_fn = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(),
                             lr=LEARNING_RATE)
results = train(model=model,
                train_dataloader=train_dataloader,
                test_dataloader=test_dataloader,
                loss_fn=loss_fn,
                optimizer=optimizer,
                epochs=NUM_EPOCHS,
                device=device)
print(results)
assert all(isinstance(v, float) for vs in results.values() for v in vs)
assert results["train_loss"][-1] < results["train_loss"][0]
assert results["test_acc"][-1] > 0.6, results
path = save_model(model=model,
                  target_dir="models",
                  model_name="05_going_modular_script_mode_tinyvgg_model.pth")
loaded = TinyVGG(input_shape=3, hidden_units=HIDDEN_UNITS, output_shape=3)
loaded.load_state_dict(torch.load(path))
X, y = next(iter(test_dataloader))
loaded.eval()
model.eval()
with torch.inference_mode():
    assert torch.equal(loaded(X), model(X))
try:
    save_model(model, "models", "model.bin")
    raise RuntimeError("save_model must refuse a name without .pt/.pth")
except AssertionError:
    pass
