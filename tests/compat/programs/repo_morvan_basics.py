"""MorvanZhou/PyTorch-Tutorial, tutorial-contents 201-306: numpy vs torch printed side by side
(from_numpy, FloatTensor, abs/sin/mean, mm, and tensor.dot on 2-D which now raises), the old
Variable API, activations through .data.numpy(), regression and two-blob classification with
torch.normal(2*n_data, 1) and .type(torch.LongTensor), Net vs Sequential printed, save/reload of
parameters, TensorDataset batches printed as numpy, and four optimizers on one loader."""
import numpy as np
import torch
import torch.nn.functional as F
import torch.utils.data as Data
from torch.autograd import Variable

torch.manual_seed(1)
np_data = np.arange(6).reshape((2, 3))
torch_data = torch.from_numpy(np_data)
tensor2array = torch_data.numpy()
print('\nnumpy array:', np_data, '\ntorch tensor:', torch_data, '\ntensor to array:', tensor2array)
data = [-1, -2, 1, 2]
tensor = torch.FloatTensor(data)
print('\nabs', '\nnumpy: ', np.abs(data), '\ntorch: ', torch.abs(tensor))
print('\nsin', '\nnumpy: ', np.sin(data), '\ntorch: ', torch.sin(tensor))
print('\nmean', '\nnumpy: ', np.mean(data), '\ntorch: ', torch.mean(tensor))
data = [[1, 2], [3, 4]]
tensor = torch.FloatTensor(data)
print('\nmatrix multiplication (matmul)', '\nnumpy: ', np.matmul(data, data), '\ntorch: ',
      torch.mm(tensor, tensor))
data = np.array(data)
try:
    print('\nmatrix multiplication (dot)', '\nnumpy: ', data.dot(data), '\ntorch: ', tensor.dot(tensor))
except RuntimeError as e:
    print(type(e).__name__)
    assert "1D tensors expected, but got 2D and 2D tensors" in str(e), e
print(tensor.flatten().dot(tensor.flatten()))

tensor = torch.FloatTensor([[1, 2], [3, 4]])
variable = Variable(tensor, requires_grad=True)
print(tensor)
print(variable)
t_out = torch.mean(tensor * tensor)
v_out = torch.mean(variable * variable)
print(t_out)
print(v_out)
v_out.backward()
print(variable.grad)
print(variable)
print(variable.data)
print(variable.data.numpy())
print(type(variable).__name__, isinstance(variable, torch.Tensor))

x = torch.linspace(-5, 5, 20)
x = Variable(x)
x_np = x.data.numpy()
y_relu = torch.relu(x).data.numpy()
y_sigmoid = torch.sigmoid(x).data.numpy()
y_tanh = torch.tanh(x).data.numpy()
y_softplus = F.softplus(x).data.numpy()
print(y_relu[:3], y_sigmoid[-3:], y_tanh[8:12], y_softplus[::6], y_softplus.dtype)


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)
        self.predict = torch.nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        x = self.predict(x)
        return x


x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)
y = x.pow(2) + 0.2 * torch.rand(x.size())
net = Net(n_feature=1, n_hidden=10, n_output=1)
print(net)
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = torch.nn.MSELoss()
for t in range(200):
    prediction = net(x)
    loss = loss_func(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if t % 40 == 0:
        print('Loss=%.4f' % loss.data.numpy())
assert loss.item() < 0.05

n_data = torch.ones(100, 2)
x0 = torch.normal(2 * n_data, 1)
y0 = torch.zeros(100)
x1 = torch.normal(-2 * n_data, 1)
y1 = torch.ones(100)
x = torch.cat((x0, x1), 0).type(torch.FloatTensor)
y = torch.cat((y0, y1), ).type(torch.LongTensor)
print(x.type(), y.type(), x[:2], y[98:102])
net = Net(n_feature=2, n_hidden=10, n_output=2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.02)
loss_func = torch.nn.CrossEntropyLoss()
for t in range(100):
    out = net(x)
    loss = loss_func(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if t % 20 == 0:
        prediction = torch.max(out, 1)[1]
        pred_y = prediction.data.numpy()
        target_y = y.data.numpy()
        accuracy = float((pred_y == target_y).astype(int).sum()) / float(target_y.size)
        print('Accuracy=%.2f' % accuracy)
print(torch.max(F.softmax(out, dim=1), 1))

net1 = Net(1, 10, 1)
net2 = torch.nn.Sequential(
    torch.nn.Linear(1, 10),
    torch.nn.ReLU(),
    torch.nn.Linear(10, 1)
)
print(net1)
print(net2)

x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)
y = x.pow(2) + 0.2 * torch.rand(x.size())
optimizer = torch.optim.SGD(net2.parameters(), lr=0.5)
for t in range(100):
    prediction = net2(x)
    loss = torch.nn.MSELoss()(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
torch.save(net2.state_dict(), 'net_params.pkl')
net3 = torch.nn.Sequential(torch.nn.Linear(1, 10), torch.nn.ReLU(), torch.nn.Linear(10, 1))
net3.load_state_dict(torch.load('net_params.pkl'))
assert torch.equal(net3(x), net2(x))

BATCH_SIZE = 5
x = torch.linspace(1, 10, 10)
y = torch.linspace(10, 1, 10)
torch_dataset = Data.TensorDataset(x, y)
loader = Data.DataLoader(dataset=torch_dataset, batch_size=BATCH_SIZE, shuffle=True)
for epoch in range(3):
    for step, (batch_x, batch_y) in enumerate(loader):
        print('Epoch: ', epoch, '| Step: ', step, '| batch x: ',
              batch_x.numpy(), '| batch y: ', batch_y.numpy())

LR, BATCH_SIZE, EPOCH = 0.01, 32, 3
x = torch.unsqueeze(torch.linspace(-1, 1, 200), dim=1)
y = x.pow(2) + 0.1 * torch.normal(torch.zeros(*x.size()))
loader = Data.DataLoader(dataset=Data.TensorDataset(x, y), batch_size=BATCH_SIZE, shuffle=True)
nets = [Net(1, 20, 1) for _ in range(4)]
net_SGD, net_Momentum, net_RMSprop, net_Adam = nets
opt_SGD = torch.optim.SGD(net_SGD.parameters(), lr=LR)
opt_Momentum = torch.optim.SGD(net_Momentum.parameters(), lr=LR, momentum=0.8)
opt_RMSprop = torch.optim.RMSprop(net_RMSprop.parameters(), lr=LR, alpha=0.9)
opt_Adam = torch.optim.Adam(net_Adam.parameters(), lr=LR, betas=(0.9, 0.99))
optimizers = [opt_SGD, opt_Momentum, opt_RMSprop, opt_Adam]
loss_func = torch.nn.MSELoss()
losses_his = [[], [], [], []]
for epoch in range(EPOCH):
    print('Epoch: ', epoch)
    for step, (b_x, b_y) in enumerate(loader):
        for net, opt, l_his in zip(nets, optimizers, losses_his):
            output = net(b_x)
            loss = loss_func(output, b_y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            l_his.append(loss.data.numpy())
labels = ['SGD', 'Momentum', 'RMSprop', 'Adam']
for i, l_his in enumerate(losses_his):
    print(labels[i], np.round(float(l_his[-1]), 4), type(l_his[-1]).__name__)
