"""PyTorch "Learn the Basics", part "Build the Neural Network" (beginner_source/basics/
buildmodel_tutorial.py): the FashionMNIST NeuralNetwork (nn.Flatten + nn.Sequential of
Linear/ReLU), device = 'cuda' if torch.cuda.is_available() else 'cpu', model(X) on
torch.rand(1, 28, 28, device=device), nn.Softmax(dim=1)(logits).argmax(1); the layers one by one
on a minibatch of 3 images (flatten, nn.Linear(in_features=28*28, out_features=20), nn.ReLU,
seq_modules, nn.Softmax), and model.named_parameters() printed with param.size() and param[:2]."""
import torch
from torch import nn

device = 'cuda' if torch.cuda.is_available() else 'cpu'
print('Using {} device'.format(device))


class NeuralNetwork(nn.Module):
    def __init__(self):
        super(NeuralNetwork, self).__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
            nn.ReLU()
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


torch.manual_seed(0)
model = NeuralNetwork().to(device)
print(model)
text = str(model)
assert "(flatten): Flatten(start_dim=1, end_dim=-1)" in text
assert "(0): Linear(in_features=784, out_features=512, bias=True)" in text
assert "(5): ReLU()" in text

X = torch.rand(1, 28, 28, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")
assert logits.shape == (1, 10) and bool((logits >= 0).all())  # the last layer is a ReLU
assert torch.allclose(pred_probab.sum(), torch.tensor(1.0))
assert y_pred.dtype == torch.int64 and y_pred.shape == (1,)
assert int(y_pred) == int(logits.argmax())

input_image = torch.rand(3,28,28)
print(input_image.size())
assert input_image.size() == torch.Size([3, 28, 28])

flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())
assert flat_image.size() == (3, 784)
assert torch.equal(flat_image[1], input_image[1].reshape(-1))

layer1 = nn.Linear(in_features=28*28, out_features=20)
hidden1 = layer1(flat_image)
print(hidden1.size())
assert hidden1.size() == (3, 20)

print(f"Before ReLU: {hidden1}\n\n")
before = hidden1
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")
assert torch.equal(hidden1, before.clamp(min=0))

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(20, 10)
)
input_image = torch.rand(3,28,28)
logits = seq_modules(input_image)

softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)
assert pred_probab.shape == (3, 10)
assert torch.allclose(pred_probab.sum(1), torch.ones(3))
assert torch.allclose(pred_probab, torch.exp(logits) / torch.exp(logits).sum(1, keepdim=True))

print("Model structure: ", model, "\n\n")

names = []
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
    names.append((name, tuple(param.size()), tuple(param[:2].shape)))
assert names == [
    ("linear_relu_stack.0.weight", (512, 784), (2, 784)),
    ("linear_relu_stack.0.bias", (512,), (2,)),
    ("linear_relu_stack.2.weight", (512, 512), (2, 512)),
    ("linear_relu_stack.2.bias", (512,), (2,)),
    ("linear_relu_stack.4.weight", (10, 512), (2, 512)),
    ("linear_relu_stack.4.bias", (10,), (2,)),
]
assert sum(p.numel() for p in model.parameters()) == 784 * 512 + 512 + 512 * 512 + 512 + 5130
