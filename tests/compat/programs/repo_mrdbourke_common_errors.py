"""mrdbourke/pytorch-deep-learning, extras/pytorch_most_common_errors.ipynb: the three errors
the course teaches (shape, device, dtype) triggered on purpose and fixed as the notebook fixes
them: @ of two 3x4 tensors then .T on either side; an image through Linear(10, 10) layers, then
nn.Flatten, in_features=784, mismatched layers, nn.LazyLinear; a RandomSampler(num_samples=)
DataLoader and a loop that sums the loss tensor; an unbatched uint8 test image (unsqueeze, then
.type(torch.float32)), softmax/argmax and .item() on the prediction. A FashionMNIST-like set of
synthetic images stands in for the download."""
import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, Dataset

torch.manual_seed(42)


def shows_error(fn, *words):
    try:
        fn()
    except RuntimeError as e:
        print(f"{type(e).__name__}: {' / '.join(w for w in words if w in str(e))}")
        assert all(w in str(e) for w in words), str(e)
        return
    raise AssertionError("expected a RuntimeError")


tensor_1 = torch.rand(3, 4)
tensor_2 = torch.rand(3, 4)
print(tensor_1.shape)
print(tensor_2.shape)
tensor_3 = tensor_1 * tensor_2
tensor_4 = torch.mul(tensor_1, tensor_2)
print(repr(tensor_3 == tensor_4))
shows_error(lambda: tensor_1 @ tensor_2, "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)")
shows_error(lambda: torch.matmul(tensor_1, tensor_2), "mat1 and mat2 shapes cannot be multiplied")
tensor_6 = tensor_1.T @ tensor_2
print(f"Shape of input tensors: {tensor_1.T.shape} and {tensor_2.shape}")
print(f"Shape of output tensor: {tensor_6.shape}")
tensor_7 = tensor_1 @ tensor_2.T
print(f"Shape of input tensors: {tensor_1.shape} and {tensor_2.T.shape}")
print(f"Shape of output tensor: {tensor_7.shape}")


class FashionLike(Dataset):
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
               "Sneaker", "Bag", "Ankle boot"]

    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.targets = torch.randint(0, 10, (n,), generator=g)
        base = torch.randint(0, 60, (n, 28, 28), generator=g)
        base[torch.arange(n), self.targets * 2 + 4, :] = 255
        self.data = base.type(torch.uint8)

    def __getitem__(self, i):
        return self.data[i].unsqueeze(0).float() / 255, int(self.targets[i])

    def __len__(self):
        return len(self.targets)


train_data, test_data = FashionLike(320, 0), FashionLike(64, 1)
image, label = train_data[0]
print(f"Image shape: {image.shape} -> [batch, height, width]")
print(f"Label: {label}")
class_names = train_data.classes
num_classes = len(class_names)
print((class_names[:3], num_classes))

model_0 = nn.Sequential(nn.Linear(in_features=10, out_features=10),
                        nn.Linear(in_features=10, out_features=10))
shows_error(lambda: model_0(image), "mat1 and mat2 shapes cannot be multiplied (28x28 and 10x10)")
flatten = nn.Flatten()
flattened_image = flatten(image)
print(f"Before flatten shape: {image.shape} -> [batch, height, width]")
print(f"After flatten shape: {flattened_image.shape} -> [batch, height*width]")
model_1 = nn.Sequential(nn.Flatten(), nn.Linear(in_features=10, out_features=10),
                        nn.Linear(in_features=10, out_features=10))
shows_error(lambda: model_1(image), "mat1 and mat2 shapes cannot be multiplied (1x784 and 10x10)")
model_2 = nn.Sequential(nn.Flatten(), nn.Linear(in_features=784, out_features=10),
                        nn.Linear(in_features=10, out_features=10))
print(model_2(image).shape)
model_3 = nn.Sequential(nn.Flatten(), nn.Linear(in_features=784, out_features=10),
                        nn.Linear(in_features=5, out_features=10))
shows_error(lambda: model_3(image), "mat1 and mat2 shapes cannot be multiplied (1x10 and 5x10)")
model_4 = nn.Sequential(nn.Flatten(), nn.Linear(in_features=784, out_features=10),
                        nn.LazyLinear(out_features=10))
print(model_4(image).shape, model_4[2])
model_5 = nn.Sequential(nn.Flatten(), nn.LazyLinear(out_features=10), nn.LazyLinear(out_features=10))
print(model_5(image).shape)
print(model_5)

device = "cuda" if torch.cuda.is_available() else "cpu"
print(f"Current device: {device}")
model_6 = nn.Sequential(nn.Flatten(), nn.LazyLinear(out_features=10), nn.LazyLinear(out_features=10))
print(f"Model is on device: {next(model_6.parameters()).device}")
train_sampler = RandomSampler(train_data, num_samples=int(0.1 * len(train_data)))
test_sampler = RandomSampler(test_data, num_samples=int(0.1 * len(test_data)))
print(f"Number of random training samples selected: {len(train_sampler)}/{len(train_data)}")
print(f"Number of random testing samples selected: {len(test_sampler)}/{len(test_data)}")
BATCH_SIZE = 8
train_dataloader = DataLoader(dataset=train_data, batch_size=BATCH_SIZE, sampler=train_sampler)
test_dataloader = DataLoader(dataset=test_data, batch_size=BATCH_SIZE, sampler=test_sampler)
print(f"Number of batches in train_dataloader: {len(train_dataloader)} batches of size {BATCH_SIZE}")
print(f"Number of batches in test_dataloader: {len(test_dataloader)} batch of size {BATCH_SIZE}")
loss_fn = nn.CrossEntropyLoss()
model_6(image)                               # the lazy layers take their shapes
optimizer = torch.optim.SGD(lr=0.1, params=model_6.parameters())
model_6.to(device)
print(f"Model is on device: {next(model_6.parameters()).device}")
for epoch in range(5):
    train_loss = 0
    for X, y in train_dataloader:
        X, y = X.to(device), y.to(device)
        y_pred = model_6(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"Epoch: {epoch} | Training loss: {train_loss:.2f}")
print(type(train_loss).__name__, train_loss.requires_grad, train_loss.grad_fn is not None)

test_image, test_label = test_data.data[0], test_data.targets[0]
print(f"Test image shape: {test_image.shape}")
print(f"Test image label: {test_label}")
shows_error(lambda: model_6(test_image), "mat1 and mat2 must have the same dtype, but got Byte and Float")
shows_error(lambda: model_6(test_image.float()), "mat1 and mat2 shapes cannot be multiplied (28x28 and 784x10)")
original_input_shape = test_image.shape
updated_input_shape = test_image.unsqueeze(dim=0).shape
print(f"Original input data shape: {original_input_shape} -> [height, width]")
print(f"Updated input data shape (with added batch dimension): {updated_input_shape} -> [batch, height, width]")
try:
    model_6(test_image.unsqueeze(dim=0).to(device))
    raise AssertionError("a uint8 image through a float32 Linear should fail")
except RuntimeError as e:
    print(type(e).__name__)
train_image_batch, train_label_batch = next(iter(train_dataloader))
train_image_single, train_label_single = train_image_batch[0], train_label_batch[0]
print(f"Datatype of training data: {train_image_single.dtype}")
print(f"Original datatype: {test_image.unsqueeze(dim=0).dtype}")
print(f"Changing the datatype: {test_image.unsqueeze(dim=0).type(torch.float32).dtype}")
pred_on_gpu = model_6(test_image.unsqueeze(dim=0).type(torch.float32).to(device))
print(repr(pred_on_gpu.shape))
model_6.cpu()
pred_on_cpu = model_6(test_image.unsqueeze(dim=0).type(torch.float32) / 255)
pred_probs = torch.softmax(pred_on_cpu, dim=1)
pred_label = torch.argmax(pred_probs, dim=1)
print(f"Test label: {test_label}")
print(f"Pred label: {pred_label}")
print(f"Is the prediction correct? {pred_label.item() == test_label}")
