"""mrdbourke/pytorch-deep-learning, 01_pytorch_workflow.ipynb: straight-line data from arange,
a train/test split, LinearRegressionModel with two nn.Parameter, L1Loss + SGD training and
testing loop under inference_mode, state_dict save/load with pathlib, then the nn.Linear version
(LinearRegressionModelV2) with device-agnostic code and pprint of the state_dict."""
from pathlib import Path
from pprint import pprint

import torch
from torch import nn

show = lambda *values: print(*(repr(v) for v in values))

weight = 0.7
bias = 0.3
start = 0
end = 1
step = 0.02
X = torch.arange(start, end, step).unsqueeze(dim=1)
y = weight * X + bias
show((X[:10], y[:10]))
train_split = int(0.8 * len(X))
X_train, y_train = X[:train_split], y[:train_split]
X_test, y_test = X[train_split:], y[train_split:]
show((len(X_train), len(y_train), len(X_test), len(y_test)))


class LinearRegressionModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(1, dtype=torch.float), requires_grad=True)
        self.bias = nn.Parameter(torch.randn(1, dtype=torch.float), requires_grad=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weights * x + self.bias


torch.manual_seed(42)
model_0 = LinearRegressionModel()
show(list(model_0.parameters()))
show(model_0.state_dict())
with torch.inference_mode():
    y_preds = model_0(X_test)
print(f"Number of testing samples: {len(X_test)}")
print(f"Number of predictions made: {len(y_preds)}")
print(f"Predicted values:\n{y_preds}")
show(y_test - y_preds)
show(y_preds.requires_grad)

loss_fn = nn.L1Loss()
optimizer = torch.optim.SGD(params=model_0.parameters(), lr=0.01)
torch.manual_seed(42)
epochs = 100
train_loss_values, test_loss_values, epoch_count = [], [], []
for epoch in range(epochs):
    model_0.train()
    y_pred = model_0(X_train)
    loss = loss_fn(y_pred, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_0.eval()
    with torch.inference_mode():
        test_pred = model_0(X_test)
        test_loss = loss_fn(test_pred, y_test.type(torch.float))
        if epoch % 10 == 0:
            epoch_count.append(epoch)
            train_loss_values.append(loss.detach().numpy())
            test_loss_values.append(test_loss.detach().numpy())
            print(f"Epoch: {epoch} | MAE Train Loss: {loss} | MAE Test Loss: {test_loss} ")
show(train_loss_values[:2], test_loss_values[-1].dtype, type(test_loss_values[-1]).__name__)
print("The model learned the following values for weights and bias:")
print(model_0.state_dict())
print("\nAnd the original values for weights and bias are:")
print(f"weights: {weight}, bias: {bias}")
model_0.eval()
with torch.inference_mode():
    y_preds = model_0(X_test)
show(y_preds)

MODEL_PATH = Path("models")
MODEL_PATH.mkdir(parents=True, exist_ok=True)
MODEL_NAME = "01_pytorch_workflow_model_0.pth"
MODEL_SAVE_PATH = MODEL_PATH / MODEL_NAME
print(f"Saving model to: {MODEL_SAVE_PATH}")
torch.save(obj=model_0.state_dict(), f=MODEL_SAVE_PATH)
loaded_model_0 = LinearRegressionModel()
show(loaded_model_0.load_state_dict(torch.load(f=MODEL_SAVE_PATH)))
loaded_model_0.eval()
with torch.inference_mode():
    loaded_model_preds = loaded_model_0(X_test)
show(y_preds == loaded_model_preds)
assert torch.equal(y_preds, loaded_model_preds)

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Using device: {device}")


class LinearRegressionModelV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear_layer = nn.Linear(in_features=1, out_features=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear_layer(x)


torch.manual_seed(42)
model_1 = LinearRegressionModelV2()
show((model_1, model_1.state_dict()))
show(next(model_1.parameters()).device)
model_1.to(device)
show(next(model_1.parameters()).device)
loss_fn = nn.L1Loss()
optimizer = torch.optim.SGD(params=model_1.parameters(), lr=0.01)
torch.manual_seed(42)
epochs = 1000
X_train, X_test = X_train.to(device), X_test.to(device)
y_train, y_test = y_train.to(device), y_test.to(device)
for epoch in range(epochs):
    model_1.train()
    y_pred = model_1(X_train)
    loss = loss_fn(y_pred, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_1.eval()
    with torch.inference_mode():
        test_pred = model_1(X_test)
        test_loss = loss_fn(test_pred, y_test)
    if epoch % 100 == 0:
        print(f"Epoch: {epoch} | Train loss: {loss} | Test loss: {test_loss}")
print("The model learned the following values for weights and bias:")
pprint(model_1.state_dict())
print("\nAnd the original values for weights and bias are:")
print(f"weights: {weight}, bias: {bias}")
model_1.eval()
with torch.inference_mode():
    y_preds = model_1(X_test)
show(y_preds, y_preds.cpu().numpy()[:2])
MODEL_SAVE_PATH = MODEL_PATH / "01_pytorch_workflow_model_1.pth"
torch.save(obj=model_1.state_dict(), f=MODEL_SAVE_PATH)
loaded_model_1 = LinearRegressionModelV2()
loaded_model_1.load_state_dict(torch.load(MODEL_SAVE_PATH))
loaded_model_1.to(device)
print(f"Loaded model:\n{loaded_model_1}")
print(f"Model on device:\n{next(loaded_model_1.parameters()).device}")
loaded_model_1.eval()
with torch.inference_mode():
    loaded_model_1_preds = loaded_model_1(X_test)
show(y_preds == loaded_model_1_preds)
assert abs(model_1.state_dict()["linear_layer.weight"].item() - weight) < 0.02
