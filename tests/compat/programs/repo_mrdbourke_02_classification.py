"""mrdbourke/pytorch-deep-learning, 02_pytorch_classification.ipynb: make_circles-like data
(numpy, in place of sklearn), from_numpy(...).type(torch.float), CircleModelV0 as a Module and as
nn.Sequential, BCEWithLogitsLoss, the accuracy_fn with torch.eq, logits -> sigmoid -> round,
training/testing loops with formatted 0-d tensors, a straight-line sanity check, ReLU models,
hand-written relu/sigmoid on arange, then make_blobs-like multiclass data with
.type(torch.LongTensor), CrossEntropyLoss, softmax/argmax."""
import numpy as np
import torch
from torch import nn

show = lambda *values: print(*(repr(v) for v in values))
rng = np.random.default_rng(42)


def make_circles(n_samples, noise, factor=0.8):
    n_out = n_samples // 2
    angle = np.linspace(0, 2 * np.pi, n_out, endpoint=False)
    outer = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    X = np.concatenate([outer, outer * factor]) + rng.normal(scale=noise, size=(n_samples, 2))
    y = np.concatenate([np.zeros(n_out, dtype=np.int64), np.ones(n_out, dtype=np.int64)])
    order = rng.permutation(n_samples)
    return X[order], y[order]


def train_test_split(X, y, test_size):
    idx = rng.permutation(len(X))
    n_test = int(len(X) * test_size)
    return X[idx[n_test:]], X[idx[:n_test]], y[idx[n_test:]], y[idx[:n_test]]


n_samples = 200
X, y = make_circles(n_samples, noise=0.03)
print(f"First 5 X features:\n{X[:5]}")
print(f"\nFirst 5 y labels:\n{y[:5]}")
show((X.shape, y.shape))
X_sample, y_sample = X[0], y[0]
print(f"Values for one sample of X: {X_sample} and the same for y: {y_sample}")
print(f"Shapes for one sample of X: {X_sample.shape} and the same for y: {y_sample.shape}")
X = torch.from_numpy(X).type(torch.float)
y = torch.from_numpy(y).type(torch.float)
show((X[:5], y[:5]))
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
show((len(X_train), len(X_test), len(y_train), len(y_test)))
device = "cuda" if torch.cuda.is_available() else "cpu"
show(device)


class CircleModelV0(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(in_features=2, out_features=5)
        self.layer_2 = nn.Linear(in_features=5, out_features=1)

    def forward(self, x):
        return self.layer_2(self.layer_1(x))


torch.manual_seed(42)
model_0 = CircleModelV0().to(device)
show(model_0)
model_0 = nn.Sequential(
    nn.Linear(in_features=2, out_features=5),
    nn.Linear(in_features=5, out_features=1)
).to(device)
show(model_0, model_0.state_dict())
untrained_preds = model_0(X_test.to(device))
print(f"Length of predictions: {len(untrained_preds)}, Shape: {untrained_preds.shape}")
print(f"Length of test samples: {len(y_test)}, Shape: {y_test.shape}")
print(f"\nFirst 10 predictions:\n{untrained_preds[:10]}")
print(f"\nFirst 10 test labels:\n{y_test[:10]}")

loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(params=model_0.parameters(), lr=0.1)


def accuracy_fn(y_true, y_pred):
    correct = torch.eq(y_true, y_pred).sum().item()
    acc = (correct / len(y_pred)) * 100
    return acc


y_logits = model_0(X_test.to(device))[:5]
show(y_logits)
y_pred_probs = torch.sigmoid(y_logits)
show(y_pred_probs)
y_preds = torch.round(y_pred_probs)
y_pred_labels = torch.round(torch.sigmoid(model_0(X_test.to(device))[:5]))
print(torch.eq(y_preds.squeeze(), y_pred_labels.squeeze()))
show(y_preds.squeeze(), y_test[:5])
try:   # the notebook's classic slip: model output (N, 1) against labels (N,)
    loss_fn(model_0(X_train), y_train)
except ValueError as e:
    print(type(e).__name__)
    assert "Target size (torch.Size([160])) must be the same as input size " \
           "(torch.Size([160, 1]))" in str(e).replace("labkit.", "torch."), str(e)


def fit(model, epochs, every, lr=0.1):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    torch.manual_seed(42)
    for epoch in range(epochs):
        model.train()
        y_logits = model(X_train).squeeze()
        y_pred = torch.round(torch.sigmoid(y_logits))
        loss = loss_fn(y_logits, y_train)
        acc = accuracy_fn(y_true=y_train, y_pred=y_pred)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.inference_mode():
            test_logits = model(X_test).squeeze()
            test_pred = torch.round(torch.sigmoid(test_logits))
            test_loss = loss_fn(test_logits, y_test)
            test_acc = accuracy_fn(y_true=y_test, y_pred=test_pred)
        if epoch % every == 0:
            print(f"Epoch: {epoch} | Loss: {loss:.5f}, Accuracy: {acc:.2f}% | "
                  f"Test loss: {test_loss:.5f}, Test acc: {test_acc:.2f}%")
    return test_acc


X_train, y_train = X_train.to(device), y_train.to(device)
X_test, y_test = X_test.to(device), y_test.to(device)
fit(model_0, 30, 10)


class CircleModelV1(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(in_features=2, out_features=10)
        self.layer_2 = nn.Linear(in_features=10, out_features=10)
        self.layer_3 = nn.Linear(in_features=10, out_features=1)

    def forward(self, x):
        return self.layer_3(self.layer_2(self.layer_1(x)))


model_1 = CircleModelV1().to(device)
show(model_1)
fit(model_1, 100, 25)

weight, bias = 0.7, 0.3
X_regression = torch.arange(0, 1, 0.01).unsqueeze(dim=1)
y_regression = weight * X_regression + bias
print(len(X_regression))
show((X_regression[:5], y_regression[:5]))
train_split = int(0.8 * len(X_regression))
X_train_regression, y_train_regression = X_regression[:train_split], y_regression[:train_split]
X_test_regression, y_test_regression = X_regression[train_split:], y_regression[train_split:]
print(len(X_train_regression), len(y_train_regression), len(X_test_regression),
      len(y_test_regression))
model_2 = nn.Sequential(
    nn.Linear(in_features=1, out_features=10),
    nn.Linear(in_features=10, out_features=10),
    nn.Linear(in_features=10, out_features=1)
).to(device)
show(model_2)
loss_fn_reg = nn.L1Loss()
optimizer = torch.optim.SGD(model_2.parameters(), lr=0.1)
torch.manual_seed(42)
for epoch in range(200):
    y_pred = model_2(X_train_regression)
    loss = loss_fn_reg(y_pred, y_train_regression)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_2.eval()
    with torch.inference_mode():
        test_pred = model_2(X_test_regression)
        test_loss = loss_fn_reg(test_pred, y_test_regression)
    if epoch % 50 == 0:
        print(f"Epoch: {epoch} | Train loss: {loss:.5f}, Test loss: {test_loss:.5f}")


class CircleModelV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(in_features=2, out_features=10)
        self.layer_2 = nn.Linear(in_features=10, out_features=10)
        self.layer_3 = nn.Linear(in_features=10, out_features=1)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.layer_3(self.relu(self.layer_2(self.relu(self.layer_1(x)))))


torch.manual_seed(42)
model_3 = CircleModelV2().to(device)
print(model_3)
final_acc = fit(model_3, 300, 50, lr=0.5)
model_3.eval()
with torch.inference_mode():
    y_preds = torch.round(torch.sigmoid(model_3(X_test))).squeeze()
show((y_preds[:10], y[:10]))

A = torch.arange(-10, 10, 1, dtype=torch.float32)
show(A)


def relu(x):
    return torch.maximum(torch.tensor(0), x)


def sigmoid(x):
    return 1 / (1 + torch.exp(-x))


show(relu(A), sigmoid(A), torch.relu(A).equal(relu(A)))

NUM_CLASSES, NUM_FEATURES = 4, 2
centers = rng.uniform(-10, 10, size=(NUM_CLASSES, NUM_FEATURES))
y_blob = rng.integers(0, NUM_CLASSES, size=200)
X_blob = centers[y_blob] + rng.normal(scale=1.5, size=(200, NUM_FEATURES))
X_blob = torch.from_numpy(X_blob).type(torch.float)
y_blob = torch.from_numpy(y_blob).type(torch.LongTensor)
print(X_blob[:5], y_blob[:5])
show(y_blob.dtype, y_blob.type())
X_blob_train, X_blob_test, y_blob_train, y_blob_test = train_test_split(X_blob, y_blob, 0.2)


class BlobModel(nn.Module):
    def __init__(self, input_features, output_features, hidden_units=8):
        super().__init__()
        self.linear_layer_stack = nn.Sequential(
            nn.Linear(in_features=input_features, out_features=hidden_units),
            nn.Linear(in_features=hidden_units, out_features=hidden_units),
            nn.Linear(in_features=hidden_units, out_features=output_features),
        )

    def forward(self, x):
        return self.linear_layer_stack(x)


model_4 = BlobModel(input_features=NUM_FEATURES, output_features=NUM_CLASSES,
                    hidden_units=8).to(device)
show(model_4)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model_4.parameters(), lr=0.1)
show(model_4(X_blob_train.to(device))[:5])
show((model_4(X_blob_train.to(device))[0].shape, NUM_CLASSES))
y_logits = model_4(X_blob_test.to(device))
y_pred_probs = torch.softmax(y_logits, dim=1)
print(y_logits[:5])
print(y_pred_probs[:5])
show(torch.sum(y_pred_probs[0]))
print(y_pred_probs[0])
print(torch.argmax(y_pred_probs[0]))
torch.manual_seed(42)
for epoch in range(100):
    model_4.train()
    y_logits = model_4(X_blob_train)
    y_pred = torch.softmax(y_logits, dim=1).argmax(dim=1)
    loss = loss_fn(y_logits, y_blob_train)
    acc = accuracy_fn(y_true=y_blob_train, y_pred=y_pred)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_4.eval()
    with torch.inference_mode():
        test_logits = model_4(X_blob_test)
        test_pred = torch.softmax(test_logits, dim=1).argmax(dim=1)
        test_loss = loss_fn(test_logits, y_blob_test)
        test_acc = accuracy_fn(y_true=y_blob_test, y_pred=test_pred)
    if epoch % 10 == 0:
        print(f"Epoch: {epoch} | Loss: {loss:.5f}, Acc: {acc:.2f}% | Test Loss: {test_loss:.5f}, "
              f"Test Acc: {test_acc:.2f}%")
model_4.eval()
with torch.inference_mode():
    y_logits = model_4(X_blob_test)
show(y_logits[:10])
y_preds = torch.softmax(y_logits, dim=1).argmax(dim=1)
print(f"Predictions: {y_preds[:10]}\nLabels: {y_blob_test[:10]}")
print(f"Test accuracy: {accuracy_fn(y_true=y_blob_test, y_pred=y_preds)}%")
assert accuracy_fn(y_blob_test, y_preds) > 80 and final_acc > 70, final_acc
