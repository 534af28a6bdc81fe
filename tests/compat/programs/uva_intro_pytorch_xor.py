"""UvA Deep Learning tutorial 2 ("Introduction to PyTorch", Phillip Lippe): torch.Tensor(2, 3, 4),
torch.from_numpy / tensor.numpy(), view / permute / matmul / bmm, the dynamic graph example
(x = torch.arange(3, dtype=torch.float32, requires_grad=True); a = x + 2; b = a ** 2; c = b + 3;
y = c.mean()), device = torch.device("cuda") if torch.cuda.is_available() else
torch.device("cpu"), torch.manual_seed + torch.cuda.manual_seed_all and cudnn flags, the XORDataset
(data.Dataset with torch.randint(0, 2, size=(size, 2)).to(torch.float32), label from the sum, and
std * torch.randn(data.shape) noise), SimpleClassifier with nn.Tanh, data.DataLoader(batch_size=8,
shuffle=True), nn.BCEWithLogitsLoss with preds.squeeze(dim=1), train_model / eval_model
(torch.sigmoid, (pred_labels == data_labels).sum()), state_dict saved and loaded, and the
decision-boundary grid built with torch.meshgrid(..., indexing='ij')."""
import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as data

print("Using torch", torch.__version__ is not None)
torch.manual_seed(42)

x = torch.Tensor(2, 3, 4)
print(x.shape, x.dtype)
x = torch.Tensor([[1, 2], [3, 4]])
print(x)
x = torch.rand(2, 3, 4)
print(x)
shape = x.shape
print("Shape:", x.shape)
size = x.size()
print("Size:", size)
dim1, dim2, dim3 = x.size()
print("Size:", dim1, dim2, dim3)

np_arr = np.array([[1, 2], [3, 4]])
tensor = torch.from_numpy(np_arr)
print("Numpy array:", np_arr)
print("PyTorch tensor:", tensor)
tensor = torch.arange(4)
np_arr = tensor.numpy()
print("PyTorch tensor:", tensor)
print("Numpy array:", np_arr)

x1 = torch.rand(2, 3)
x2 = torch.rand(2, 3)
y = x1 + x2
print("X1", x1)
print("X2", x2)
print("Y", y)
x2.add_(x1)
print("X2 (after)", x2)

x = torch.arange(6)
print("X", x)
x = x.view(2, 3)
print("X", x)
x = x.permute(1, 0)  # Swapping dimension 0 and 1
print("X", x)
x = torch.arange(6)
x = x.view(2, 3)
W = torch.arange(9).view(3, 3)  # We can also stack multiple operations in a single line
h = torch.matmul(x, W)  # Verify the result by calculating it by hand too!
print("h", h)
x = torch.arange(12).view(3, 4)
print("X", x)
print(x[:, 1])  # Second column
print(x[0])  # First row
print(x[:2, -1])  # First two rows, last column
print(x[1:3, :])  # Middle two rows

x = torch.ones((3,))
print(x.requires_grad)
x.requires_grad_(True)
print(x.requires_grad)
x = torch.arange(3, dtype=torch.float32, requires_grad=True)  # Only float tensors can have gradients
print("X", x)
a = x + 2
b = a ** 2
c = b + 3
y = c.mean()
print("Y", y)
y.backward()
print(x.grad)
assert torch.allclose(x.grad, torch.tensor([4 / 3, 2.0, 8 / 3]))

gpu_avail = torch.cuda.is_available()
print(f"Is the GPU available? {gpu_avail}")
device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
print("Device", device)
x = torch.zeros(2, 3)
x = x.to(device)
print("X", x)

torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.manual_seed(42)
    torch.cuda.manual_seed_all(42)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False


class SimpleClassifier(nn.Module):

    def __init__(self, num_inputs, num_hidden, num_outputs):
        super().__init__()
        # Initialize the modules we need to build the network
        self.linear1 = nn.Linear(num_inputs, num_hidden)
        self.act_fn = nn.Tanh()
        self.linear2 = nn.Linear(num_hidden, num_outputs)

    def forward(self, x):
        # Perform the calculation of the model to determine the prediction
        x = self.linear1(x)
        x = self.act_fn(x)
        x = self.linear2(x)
        return x


model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
# Printing a module shows all its submodules
print(model)
for name, param in model.named_parameters():
    print(f"Parameter {name}, shape {param.shape}")


class XORDataset(data.Dataset):

    def __init__(self, size, std=0.1):
        super().__init__()
        self.size = size
        self.std = std
        self.generate_continuous_xor()

    def generate_continuous_xor(self):
        data = torch.randint(low=0, high=2, size=(self.size, 2), dtype=torch.float32)
        label = (data.sum(dim=1) == 1).to(torch.long)
        # To make it slightly more challenging, we add a bit of gaussian noise to the data points.
        data += self.std * torch.randn(data.shape)
        self.data = data
        self.label = label

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        data_point = self.data[idx]
        data_label = self.label[idx]
        return data_point, data_label


dataset = XORDataset(size=200)
print("Size of dataset:", len(dataset))
print("Data point 0:", dataset[0])
data_0 = dataset.data[dataset.label == 0]
data_1 = dataset.data[dataset.label == 1]
print(data_0.shape, data_1.shape, np.asarray(data_0[:, 0]).shape)  # what plt.scatter receives

data_loader = data.DataLoader(dataset, batch_size=8, shuffle=True)
data_inputs, data_labels = next(iter(data_loader))
print("Data inputs", data_inputs.shape, "\n", data_inputs)
print("Data labels", data_labels.shape, "\n", data_labels)

loss_module = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_dataset = XORDataset(size=1000)
train_data_loader = data.DataLoader(train_dataset, batch_size=128, shuffle=True)
model.to(device)


def train_model(model, optimizer, data_loader, loss_module, num_epochs=100):
    model.train()
    for epoch in range(num_epochs):
        for data_inputs, data_labels in data_loader:
            data_inputs = data_inputs.to(device)
            data_labels = data_labels.to(device)
            preds = model(data_inputs)
            preds = preds.squeeze(dim=1)  # Output is [Batch size, 1], but we want [Batch size]
            loss = loss_module(preds, data_labels.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


train_model(model, optimizer, train_data_loader, loss_module)
state_dict = model.state_dict()
print(state_dict)
torch.save(state_dict, "our_model.tar")
state_dict = torch.load("our_model.tar")
new_model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
new_model.load_state_dict(state_dict)
print("Original model\n", model.state_dict())
print("\nLoaded model\n", new_model.state_dict())

test_dataset = XORDataset(size=500)
test_data_loader = data.DataLoader(test_dataset, batch_size=128, shuffle=False, drop_last=False)


def eval_model(model, data_loader):
    model.eval()  # Set model to eval mode
    true_preds, num_preds = 0., 0.
    with torch.no_grad():  # Deactivate gradients for the following code
        for data_inputs, data_labels in data_loader:
            data_inputs, data_labels = data_inputs.to(device), data_labels.to(device)
            preds = model(data_inputs)
            preds = preds.squeeze(dim=1)
            preds = torch.sigmoid(preds)  # Sigmoid to map predictions between 0 and 1
            pred_labels = (preds >= 0.5).long()  # Binarize predictions to 0 and 1
            true_preds += (pred_labels == data_labels).sum()
            num_preds += data_labels.shape[0]
    acc = true_preds / num_preds
    print(f"Accuracy of the model: {100.0*acc:4.2f}%")
    return acc


acc = eval_model(model, test_data_loader)
assert isinstance(acc, torch.Tensor) and acc.item() > 0.9

# the decision boundary figure: a grid through the model, as plt.imshow would receive it
x1 = torch.arange(-0.5, 1.5, step=0.1, device=device)
x2 = torch.arange(-0.5, 1.5, step=0.1, device=device)
xx1, xx2 = torch.meshgrid(x1, x2, indexing='ij')  # Meshgrid function as in numpy
model_inputs = torch.stack([xx1, xx2], dim=-1)
with torch.no_grad():
    preds = model(model_inputs)
    preds = torch.sigmoid(preds)
c0 = torch.Tensor([0.2, 0.2, 1.0]).to(device)
c1 = torch.Tensor([1.0, 0.2, 0.2]).to(device)
output_image = (1 - preds) * c0[None, None] + preds * c1[None, None]
output_image = output_image.cpu().numpy()
print(output_image.shape, output_image.dtype, model_inputs.shape)
assert output_image.shape == (20, 20, 3) and output_image.dtype == np.float32
