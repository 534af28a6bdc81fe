"""UvA Deep Learning tutorial 3 ("Activation Functions", Phillip Lippe), at toy size on synthetic
8x8 "FashionMNIST" images (torchvision and the pretrained downloads left out, plots replaced by
assertions): the ActivationFunction base class with a config dict, Sigmoid / Tanh / ReLU (x * (x
> 0).float()) / LeakyReLU (torch.where) / ELU / Swish written by hand and checked against
torch's own functions and gradients, get_grads (x.clone().requires_grad_(), out.sum().backward()),
BaseNetwork from a list of hidden sizes, save_model / load_model (a JSON config beside
torch.save(model.state_dict()), act_fn_by_name[name](**config), torch.load(map_location=device)),
data.random_split, visualize_gradients' dict of params.grad.data.view(-1).cpu().clone().numpy()
per weight, train_model with SGD(momentum=0.9), early stopping on validation accuracy and
reloading the best checkpoint, test_model under torch.no_grad(), the activation statistics by
looping over net.layers[:-1], and measure_number_dead_neurons (torch.logical_and of (imgs ==
0).all(dim=0) per layer, boolean tensors summed with .item())."""
import json
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

CHECKPOINT_PATH = "saved_models/tutorial3"


def set_seed(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():  # GPU operation have separate seed
        torch.cuda.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)


set_seed(42)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
device = torch.device("cpu") if not torch.cuda.is_available() else torch.device("cuda:0")
print("Using device", device)


class ActivationFunction(nn.Module):

    def __init__(self):
        super().__init__()
        self.name = self.__class__.__name__
        self.config = {"name": self.name}


class Sigmoid(ActivationFunction):

    def forward(self, x):
        return 1 / (1 + torch.exp(-x))


class Tanh(ActivationFunction):

    def forward(self, x):
        x_exp, neg_x_exp = torch.exp(x), torch.exp(-x)
        return (x_exp - neg_x_exp) / (x_exp + neg_x_exp)


class ReLU(ActivationFunction):

    def forward(self, x):
        return x * (x > 0).float()


class LeakyReLU(ActivationFunction):

    def __init__(self, alpha=0.1):
        super().__init__()
        self.config["alpha"] = alpha

    def forward(self, x):
        return torch.where(x > 0, x, self.config["alpha"] * x)


class ELU(ActivationFunction):

    def forward(self, x):
        return torch.where(x > 0, x, torch.exp(x)-1)


class Swish(ActivationFunction):

    def forward(self, x):
        return x * torch.sigmoid(x)


act_fn_by_name = {
    "sigmoid": Sigmoid,
    "tanh": Tanh,
    "relu": ReLU,
    "leakyrelu": LeakyReLU,
    "elu": ELU,
    "swish": Swish
}


def get_grads(act_fn, x):
    x = x.clone().requires_grad_()  # Mark the input as tensor for which we want to store gradients
    out = act_fn(x)
    out.sum().backward()  # Summing results in an equal gradient flow to each element in x
    return x.grad  # Accessing the gradients of x by "x.grad"


act_fns = [act_fn() for act_fn in act_fn_by_name.values()]
x = torch.linspace(-5, 5, 1000)  # Range on which we want to visualize the activation functions
reference = {"Sigmoid": torch.sigmoid, "Tanh": torch.tanh, "ReLU": F.relu,
             "LeakyReLU": lambda x: F.leaky_relu(x, 0.1), "ELU": F.elu, "Swish": F.silu}
for act_fn in act_fns:
    y = act_fn(x)
    y_grads = get_grads(act_fn, x)
    ref = reference[act_fn.name]
    assert torch.allclose(y, ref(x), atol=1e-6), act_fn.name
    assert torch.allclose(y_grads, get_grads(ref, x), atol=1e-5), act_fn.name
    x_np, y_np, g_np = x.cpu().numpy(), y.cpu().numpy(), y_grads.cpu().numpy()
    assert x_np.shape == y_np.shape == g_np.shape == (1000,)
# the gradients at the edges of the range: saturated sigmoid/tanh, a constant 1 for ReLU
g = {a.name: get_grads(a, torch.tensor([-5., 5.])) for a in act_fns}
assert g["Sigmoid"].max() < 0.01 and g["Tanh"].max() < 0.001
assert g["ReLU"].tolist() == [0., 1.] and abs(g["LeakyReLU"][0].item() - 0.1) < 1e-7
assert abs(g["ELU"][0].item() - math.exp(-5)) < 1e-6


class BaseNetwork(nn.Module):

    def __init__(self, act_fn, input_size=784, num_classes=10, hidden_sizes=[512, 256, 256, 128]):
        super().__init__()

        # Create the network based on the specified hidden sizes
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index-1], layer_sizes[layer_index]),
                       act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)  # nn.Sequential summarizes a list of modules into a single module, applying them in sequence

        # We store all hyperparameters in a dictionary for saving and loading of the model
        self.config = {"act_fn": act_fn.config, "input_size": input_size, "num_classes": num_classes, "hidden_sizes": hidden_sizes}

    def forward(self, x):
        x = x.view(x.size(0), -1)  # Reshape images to a flat vector
        out = self.layers(x)
        return out


def _get_config_file(model_path, model_name):
    return os.path.join(model_path, model_name + ".config")


def _get_model_file(model_path, model_name):
    return os.path.join(model_path, model_name + ".tar")


def load_model(model_path, model_name, net=None):
    config_file, model_file = _get_config_file(model_path, model_name), _get_model_file(model_path, model_name)
    assert os.path.isfile(config_file), f"Could not find the config file \"{config_file}\". Are you sure this is the correct path and you have your model config stored here?"
    assert os.path.isfile(model_file), f"Could not find the model file \"{model_file}\". Are you sure this is the correct path and you have your model stored here?"
    with open(config_file, "r") as f:
        config_dict = json.load(f)
    if net is None:
        act_fn_name = config_dict["act_fn"].pop("name").lower()
        act_fn = act_fn_by_name[act_fn_name](**config_dict.pop("act_fn"))
        net = BaseNetwork(act_fn=act_fn, **config_dict)
    net.load_state_dict(torch.load(model_file, map_location=device))
    return net


def save_model(model, model_path, model_name):
    config_dict = model.config
    os.makedirs(model_path, exist_ok=True)
    config_file, model_file = _get_config_file(model_path, model_name), _get_model_file(model_path, model_name)
    with open(config_file, "w") as f:
        json.dump(config_dict, f)
    torch.save(model.state_dict(), model_file)


# synthetic "FashionMNIST": 10 prototypes of 8x8, noise, normalised to about [-1, 1]
g = torch.Generator().manual_seed(0)
protos = torch.rand(10, 1, 8, 8, generator=g)
def make(n):
    labels = torch.randint(0, 10, (n,), generator=g)
    imgs = (protos[labels] + 0.25 * torch.randn(n, 1, 8, 8, generator=g)).clamp(0, 1)
    return data.TensorDataset((imgs - 0.5) / 0.5, labels)
train_dataset = make(1200)
train_set, val_set = torch.utils.data.random_split(train_dataset, [1000, 200])
assert len(train_set) == 1000 and len(val_set) == 200
test_set = make(300)
train_loader = data.DataLoader(train_set, batch_size=1024, shuffle=True, drop_last=False)
val_loader = data.DataLoader(val_set, batch_size=1024, shuffle=False, drop_last=False)
test_loader = data.DataLoader(test_set, batch_size=1024, shuffle=False, drop_last=False)
hidden = [64, 32, 32, 16]


def gradients(net):   # visualize_gradients without the plot
    net.eval()
    small_loader = data.DataLoader(train_set, batch_size=256, shuffle=False)
    imgs, labels = next(iter(small_loader))
    imgs, labels = imgs.to(device), labels.to(device)

    # Pass one batch through the network, and calculate the gradients for the weights
    net.zero_grad()
    preds = net(imgs)
    loss = F.cross_entropy(preds, labels)
    loss.backward()
    # We limit our visualization to the weight parameters and exclude the bias to reduce the number of plots
    grads = {name: params.grad.data.view(-1).cpu().clone().numpy() for name, params in net.named_parameters() if "weight" in name}
    net.zero_grad()
    return grads


stds = {}
for i, act_fn_name in enumerate(act_fn_by_name):
    set_seed(42)  # Setting the seed ensures that we have the same weight initialization for each activation function
    act_fn = act_fn_by_name[act_fn_name]()
    net_actfn = BaseNetwork(act_fn=act_fn, input_size=64, hidden_sizes=hidden).to(device)
    grads = gradients(net_actfn)
    assert list(grads) == ['layers.0.weight', 'layers.2.weight', 'layers.4.weight', 'layers.6.weight', 'layers.8.weight']
    assert all(p.grad is None for p in net_actfn.parameters())      # zero_grad(set_to_none)
    stds[act_fn_name] = float(grads['layers.0.weight'].std())
print(stds)
assert stds["sigmoid"] < stds["relu"]        # the sigmoid network's first layer barely learns


def test_model(net, data_loader):
    net.eval()
    true_preds, count = 0., 0
    for imgs, labels in data_loader:
        imgs, labels = imgs.to(device), labels.to(device)
        with torch.no_grad():
            preds = net(imgs).argmax(dim=-1)
            true_preds += (preds == labels).sum().item()
            count += labels.shape[0]
    test_acc = true_preds / count
    return test_acc


def train_model(net, model_name, max_epochs=50, patience=7, batch_size=256, overwrite=False):
    file_exists = os.path.isfile(_get_model_file(CHECKPOINT_PATH, model_name))
    if file_exists and not overwrite:
        print("Model file already exists. Skipping training...")
    else:
        if file_exists:
            print("Model file exists, but will be overwritten...")

        # Defining optimizer, loss and data loader
        optimizer = optim.SGD(net.parameters(), lr=1e-2, momentum=0.9)  # Default parameters, feel free to change
        loss_module = nn.CrossEntropyLoss()
        train_loader_local = data.DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=True, pin_memory=True)
        val_scores = []
        best_val_epoch = -1
        for epoch in range(max_epochs):
            net.train()
            true_preds, count = 0., 0
            for imgs, labels in train_loader_local:
                imgs, labels = imgs.to(device), labels.to(device)  # To GPU
                optimizer.zero_grad()  # Zero-grad can be placed anywhere before "loss.backward()"
                preds = net(imgs)
                loss = loss_module(preds, labels)
                loss.backward()
                optimizer.step()
                # Record statistics during training
                true_preds += (preds.argmax(dim=-1) == labels).sum()
                count += labels.shape[0]
            train_acc = true_preds / count
            val_acc = test_model(net, val_loader)
            val_scores.append(val_acc)
            print(f"[Epoch {epoch+1:2d}] Training accuracy: {train_acc*100.0:05.2f}%, Validation accuracy: {val_acc*100.0:05.2f}%")
            if len(val_scores) == 1 or val_acc > val_scores[best_val_epoch]:
                print("\t   (New best performance, saving model...)")
                save_model(net, CHECKPOINT_PATH, model_name)
                best_val_epoch = epoch
            elif best_val_epoch <= epoch - patience:
                print(f"Early stopping due to no improvement over the last {patience} epochs")
                break

    load_model(CHECKPOINT_PATH, model_name, net=net)
    test_acc = test_model(net, test_loader)
    print((f" Test accuracy: {test_acc*100.0:4.2f}% ").center(50, "=")+"\n")
    return test_acc


accs = {}
for act_fn_name in act_fn_by_name:
    print(f"Training BaseNetwork with {act_fn_name} activation...")
    set_seed(42)
    act_fn = act_fn_by_name[act_fn_name]()
    net_actfn = BaseNetwork(act_fn=act_fn, input_size=64, hidden_sizes=hidden).to(device)
    accs[act_fn_name] = train_model(net_actfn, f"FashionMNIST_{act_fn_name}", max_epochs=10, patience=3, batch_size=32)
print(accs)
# a few hundred steps: tanh and ELU have learnt the task, sigmoid has not left chance level
assert accs["tanh"] > 0.9 and accs["elu"] > 0.9 and accs["sigmoid"] == min(accs.values()) < 0.2, accs
assert sorted(os.listdir(CHECKPOINT_PATH))[:2] == ["FashionMNIST_elu.config", "FashionMNIST_elu.tar"]
# a second call finds the checkpoint and only evaluates it
set_seed(42)
again = BaseNetwork(act_fn=ReLU(), input_size=64, hidden_sizes=hidden)
assert train_model(again, "FashionMNIST_relu") == accs["relu"]

# load_model builds the network from the JSON config alone
net_lrelu = load_model(model_path=CHECKPOINT_PATH, model_name="FashionMNIST_leakyrelu").to(device)
assert isinstance(net_lrelu.layers[1], LeakyReLU) and net_lrelu.layers[1].config["alpha"] == 0.1
assert net_lrelu.config["hidden_sizes"] == hidden and test_model(net_lrelu, test_loader) == accs["leakyrelu"]


def activations_of(net):   # visualize_activations without the plot
    activations = {}
    net.eval()
    small_loader = data.DataLoader(train_set, batch_size=1024)
    imgs, labels = next(iter(small_loader))
    with torch.no_grad():
        layer_index = 0
        imgs = imgs.to(device)
        imgs = imgs.view(imgs.size(0), -1)
        # We need to manually loop through the layers to save all activations
        for layer_index, layer in enumerate(net.layers[:-1]):
            imgs = layer(imgs)
            activations[layer_index] = imgs.view(-1).cpu().numpy()
    return activations


acts = activations_of(load_model(model_path=CHECKPOINT_PATH, model_name="FashionMNIST_tanh"))
assert len(acts) == 8 and acts[1].min() >= -1 and acts[1].max() <= 1 and acts[7].size == 1000 * 16


def measure_number_dead_neurons(net):
    neurons_dead = [
        torch.ones(layer.weight.shape[0], device=device, dtype=torch.bool) for layer in net.layers[:-1] if isinstance(layer, nn.Linear)
    ]  # Same shapes as hidden size in BaseNetwork
    net.eval()
    with torch.no_grad():
        for imgs, labels in train_loader:  # Run through whole training set
            layer_index = 0
            imgs = imgs.to(device)
            imgs = imgs.view(imgs.size(0), -1)
            for layer in net.layers[:-1]:
                imgs = layer(imgs)
                if isinstance(layer, ActivationFunction):
                    # Are all activations == 0 in the batch, and we did not record the opposite in the last batches?
                    neurons_dead[layer_index] = torch.logical_and(neurons_dead[layer_index], (imgs == 0).all(dim=0))
                    layer_index += 1
    number_neurons_dead = [t.sum().item() for t in neurons_dead]
    print("Number of dead neurons:", number_neurons_dead)
    print("In percentage:", ", ".join([f"{(100.0 * num_dead / tens.shape[0]):4.2f}%" for tens, num_dead in zip(neurons_dead, number_neurons_dead)]))
    return number_neurons_dead


set_seed(42)
net_relu = BaseNetwork(act_fn=ReLU(), input_size=64, hidden_sizes=hidden).to(device)
dead = measure_number_dead_neurons(net_relu)
assert len(dead) == 4 and all(isinstance(d, int) for d in dead)
net_relu = load_model(model_path=CHECKPOINT_PATH, model_name="FashionMNIST_relu").to(device)
measure_number_dead_neurons(net_relu)
set_seed(42)
net_relu = BaseNetwork(act_fn=ReLU(), input_size=64, hidden_sizes=[32] * 5 + [16] * 5).to(device)
deep = measure_number_dead_neurons(net_relu)
assert len(deep) == 10 and sum(deep) >= sum(dead)   # deeper plain ReLU nets have more dead units
