"""The CIFAR tutorial's per-class accuracy: dict comprehensions over classes, zip(labels, predictions),
correct_pred[classname] += 1, and 100 * float(correct_count) / total_pred[classname]."""
import torch
import torch.nn as nn

torch.manual_seed(0)
classes = ('plane', 'car', 'bird')
labels_all = torch.randint(0, 3, (90,))
x_all = torch.randn(90, 5) + nn.functional.one_hot(labels_all, 3).float().repeat(1, 2)[:, :5] * 3
testset = torch.utils.data.TensorDataset(x_all, labels_all)
testloader = torch.utils.data.DataLoader(testset, batch_size=10)
net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(net.parameters(), lr=0.05)
for _ in range(40):
    for xb, yb in testloader:
        opt.zero_grad()
        nn.functional.cross_entropy(net(xb), yb).backward()
        opt.step()

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
accuracies = {}
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / total_pred[classname]
    accuracies[classname] = accuracy
    print(f'Accuracy for class: {classname:5s} is {accuracy:.1f} %')
assert sum(total_pred.values()) == 90
assert min(accuracies.values()) > 70
