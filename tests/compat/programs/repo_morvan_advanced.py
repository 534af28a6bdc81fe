"""MorvanZhou/PyTorch-Tutorial, tutorial-contents 401-504 on synthetic data: the CNN (Conv2d
positional args, MaxPool2d(2), x.view(x.size(0), -1), returning (output, x)), the LSTM image
classifier (self.rnn(x, None)), the sin->cos RNN regressor carrying h_state.data between chunks
(403) and with dynamic lengths (501), the tanh autoencoder, the conditional GAN with torch.log
scores and backward(retain_graph=True), DQN (weight.data.normal_, numpy replay memory,
FloatTensor/LongTensor from numpy slices, gather, target_net.load_state_dict), dropout vs
overfitting with eval()/train(), and BatchNorm1d(momentum=0.5) nets built with setattr."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as Data
from torch.nn import init

torch.manual_seed(1)
np.random.seed(1)

n = 300
labels = torch.randint(0, 10, (n,))
images = torch.rand(n, 1, 28, 28) * 0.3
images[torch.arange(n), 0, labels * 2 + 4, 4:24] = 1.0
train_loader = Data.DataLoader(dataset=Data.TensorDataset(images[:200], labels[:200]),
                               batch_size=50, shuffle=True)
test_x, test_y = images[200:], labels[200:]


class CNN(nn.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.conv1 = nn.Sequential(
            nn.Conv2d(in_channels=1, out_channels=8, kernel_size=5, stride=1, padding=2),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2),
        )
        self.conv2 = nn.Sequential(
            nn.Conv2d(8, 16, 5, 1, 2),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.out = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)
        output = self.out(x)
        return output, x


cnn = CNN()
print(cnn)
optimizer = torch.optim.Adam(cnn.parameters(), lr=0.005)
loss_func = nn.CrossEntropyLoss()
for epoch in range(2):
    for step, (b_x, b_y) in enumerate(train_loader):
        output = cnn(b_x)[0]
        loss = loss_func(output, b_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 2 == 0:
            test_output, last_layer = cnn(test_x)
            pred_y = torch.max(test_output, 1)[1].data.numpy()
            accuracy = float((pred_y == test_y.data.numpy()).astype(int).sum()) / float(test_y.size(0))
            print('Epoch: ', epoch, '| train loss: %.4f' % loss.data.numpy(),
                  '| test accuracy: %.2f' % accuracy)
test_output, _ = cnn(test_x[:10])
pred_y = torch.max(test_output, 1)[1].data.numpy()
print(pred_y, 'prediction number')
print(test_y[:10].numpy(), 'real number')
print(last_layer.shape)


class RNN(nn.Module):
    def __init__(self):
        super(RNN, self).__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=32, num_layers=1, batch_first=True)
        self.out = nn.Linear(32, 10)

    def forward(self, x):
        r_out, (h_n, h_c) = self.rnn(x, None)
        out = self.out(r_out[:, -1, :])
        return out


rnn = RNN()
print(rnn)
optimizer = torch.optim.Adam(rnn.parameters(), lr=0.01)
for step, (b_x, b_y) in enumerate(train_loader):
    b_x = b_x.view(-1, 28, 28)
    output = rnn(b_x)
    loss = loss_func(output, b_y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 2 == 0:
        test_output = rnn(test_x.view(-1, 28, 28))
        pred_y = torch.max(test_output, 1)[1].data.numpy()
        accuracy = float((pred_y == test_y.numpy()).astype(int).sum()) / float(test_y.numpy().size)
        print('train loss: %.4f' % loss.data.numpy(), '| test accuracy: %.2f' % accuracy)


class RNNRegressor(nn.Module):
    def __init__(self):
        super(RNNRegressor, self).__init__()
        self.rnn = nn.RNN(input_size=1, hidden_size=32, num_layers=1, batch_first=True)
        self.out = nn.Linear(32, 1)

    def forward(self, x, h_state):
        r_out, h_state = self.rnn(x, h_state)
        outs = []
        for time_step in range(r_out.size(1)):
            outs.append(self.out(r_out[:, time_step, :]))
        return torch.stack(outs, dim=1), h_state


for dynamic in (False, True):
    rnn = RNNRegressor()
    print(rnn)
    optimizer = torch.optim.Adam(rnn.parameters(), lr=0.02)
    loss_func = nn.MSELoss()
    h_state = None
    step = 0
    for i in range(40):
        dynamic_steps = np.random.randint(1, 4) if dynamic else 1
        start, end = step * np.pi, (step + dynamic_steps) * np.pi
        step += dynamic_steps
        steps = np.linspace(start, end, 10 * dynamic_steps, dtype=np.float32, endpoint=False)
        x_np = np.sin(steps)
        y_np = np.cos(steps)
        x = torch.from_numpy(x_np[np.newaxis, :, np.newaxis])
        y = torch.from_numpy(y_np[np.newaxis, :, np.newaxis])
        prediction, h_state = rnn(x, h_state)
        h_state = h_state.data
        loss = loss_func(prediction, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 10 == 0:
            print(len(steps), x.shape, h_state.shape, h_state.requires_grad, '%.4f' % loss.item())


class AutoEncoder(nn.Module):
    def __init__(self):
        super(AutoEncoder, self).__init__()
        self.encoder = nn.Sequential(nn.Linear(28 * 28, 64), nn.Tanh(), nn.Linear(64, 12),
                                     nn.Tanh(), nn.Linear(12, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 12), nn.Tanh(), nn.Linear(12, 64), nn.Tanh(),
                                     nn.Linear(64, 28 * 28), nn.Sigmoid())

    def forward(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return encoded, decoded


autoencoder = AutoEncoder()
optimizer = torch.optim.Adam(autoencoder.parameters(), lr=0.005)
loss_func = nn.MSELoss()
view_data = (images[:5] * 255).type(torch.ByteTensor).view(-1, 28 * 28).type(torch.FloatTensor) / 255.
print(view_data.dtype, view_data.shape)
for epoch in range(2):
    for step, (x, b_label) in enumerate(train_loader):
        b_x = x.view(-1, 28 * 28)
        b_y = x.view(-1, 28 * 28)
        encoded, decoded = autoencoder(b_x)
        loss = loss_func(decoded, b_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 2 == 0:
            print('Epoch: ', epoch, '| train loss: %.4f' % loss.data.numpy())
encoded_data, _ = autoencoder(view_data)
X, Y, Z = encoded_data.data[:, 0].numpy(), encoded_data.data[:, 1].numpy(), encoded_data.data[:, 2].numpy()
print(X.shape, Y.dtype, Z.ndim)

BATCH_SIZE, N_IDEAS, ART_COMPONENTS = 64, 5, 15
PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])


def artist_works_with_labels():
    a = np.random.uniform(1, 2, size=BATCH_SIZE)[:, np.newaxis]
    paintings = a * np.power(PAINT_POINTS, 2) + (a - 1)
    labels = (a - 1) > 0.5
    paintings = torch.from_numpy(paintings).float()
    labels = torch.from_numpy(labels.astype(np.float32))
    return paintings, labels


G = nn.Sequential(nn.Linear(N_IDEAS + 1, 32), nn.ReLU(), nn.Linear(32, ART_COMPONENTS))
D = nn.Sequential(nn.Linear(ART_COMPONENTS + 1, 32), nn.ReLU(), nn.Linear(32, 1), nn.Sigmoid())
opt_D = torch.optim.Adam(D.parameters(), lr=0.0001)
opt_G = torch.optim.Adam(G.parameters(), lr=0.0001)
for step in range(60):
    artist_paintings, labels = artist_works_with_labels()
    G_ideas = torch.randn(BATCH_SIZE, N_IDEAS)
    G_inputs = torch.cat((G_ideas, labels), 1)
    G_paintings = G(G_inputs)
    D_inputs0 = torch.cat((artist_paintings, labels), 1)
    D_inputs1 = torch.cat((G_paintings, labels), 1)
    prob_artist0 = D(D_inputs0)
    prob_artist1 = D(D_inputs1)
    D_score0 = torch.log(prob_artist0)
    D_score1 = torch.log(1. - prob_artist1)
    D_loss = - torch.mean(D_score0 + D_score1)
    G_loss = torch.mean(D_score1)
    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()
    opt_G.zero_grad()
    try:
        G_loss.backward()
        opt_G.step()
    except RuntimeError as e:      # since torch 1.5 D's step changed weights G_loss's graph saved
        if step == 0:
            print(type(e).__name__, "modified by an inplace operation" in str(e))
    if step % 20 == 0:
        bound = [0, 0.5] if labels.data[0, 0] == 0 else [0.5, 1]
        print(bound, '%.4f' % D_loss.item(), '%.4f' % prob_artist0.data.numpy().mean())
z = torch.randn(1, N_IDEAS)
label = torch.FloatTensor([[1.]])
G_inputs = torch.cat((z, label), 1)
print(G(G_inputs).shape)

N_ACTIONS, N_STATES, MEMORY_CAPACITY, EPSILON, GAMMA = 2, 4, 200, 0.9, 0.9


class Net(nn.Module):
    def __init__(self, ):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(N_STATES, 50)
        self.fc1.weight.data.normal_(0, 0.1)
        self.out = nn.Linear(50, N_ACTIONS)
        self.out.weight.data.normal_(0, 0.1)

    def forward(self, x):
        x = self.fc1(x)
        x = F.relu(x)
        actions_value = self.out(x)
        return actions_value


class DQN(object):
    def __init__(self):
        self.eval_net, self.target_net = Net(), Net()
        self.learn_step_counter = 0
        self.memory_counter = 0
        self.memory = np.zeros((MEMORY_CAPACITY, N_STATES * 2 + 2))
        self.optimizer = torch.optim.Adam(self.eval_net.parameters(), lr=0.01)
        self.loss_func = nn.MSELoss()

    def choose_action(self, x):
        x = torch.unsqueeze(torch.FloatTensor(x), 0)
        if np.random.uniform() < EPSILON:
            actions_value = self.eval_net.forward(x)
            action = torch.max(actions_value, 1)[1].data.numpy()
            action = action[0]
        else:
            action = np.random.randint(0, N_ACTIONS)
        return action

    def store_transition(self, s, a, r, s_):
        transition = np.hstack((s, [a, r], s_))
        index = self.memory_counter % MEMORY_CAPACITY
        self.memory[index, :] = transition
        self.memory_counter += 1

    def learn(self):
        if self.learn_step_counter % 20 == 0:
            self.target_net.load_state_dict(self.eval_net.state_dict())
        self.learn_step_counter += 1
        sample_index = np.random.choice(MEMORY_CAPACITY, 32)
        b_memory = self.memory[sample_index, :]
        b_s = torch.FloatTensor(b_memory[:, :N_STATES])
        b_a = torch.LongTensor(b_memory[:, N_STATES:N_STATES + 1].astype(int))
        b_r = torch.FloatTensor(b_memory[:, N_STATES + 1:N_STATES + 2])
        b_s_ = torch.FloatTensor(b_memory[:, -N_STATES:])
        q_eval = self.eval_net(b_s).gather(1, b_a)
        q_next = self.target_net(b_s_).detach()
        q_target = b_r + GAMMA * q_next.max(1)[0].view(32, 1)
        loss = self.loss_func(q_eval, q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss


dqn = DQN()
s = np.random.uniform(-0.05, 0.05, N_STATES)
for t in range(260):
    a = dqn.choose_action(s)
    s_ = s + np.random.normal(0, 0.05, N_STATES) + (0.01 if a else -0.01)
    r = 1.0 - abs(s_[0])
    dqn.store_transition(s, a, r, s_)
    if dqn.memory_counter > MEMORY_CAPACITY:
        loss = dqn.learn()
        if t % 20 == 0:
            print('step', t, '| loss %.5f' % loss.item(), type(a).__name__)
    s = s_

N_SAMPLES, N_HIDDEN = 20, 100
x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
y = x + 0.3 * torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))
test_x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
test_y = test_x + 0.3 * torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))
net_overfitting = torch.nn.Sequential(torch.nn.Linear(1, N_HIDDEN), torch.nn.ReLU(),
                                      torch.nn.Linear(N_HIDDEN, N_HIDDEN), torch.nn.ReLU(),
                                      torch.nn.Linear(N_HIDDEN, 1))
net_dropped = torch.nn.Sequential(torch.nn.Linear(1, N_HIDDEN), torch.nn.Dropout(0.5),
                                  torch.nn.ReLU(), torch.nn.Linear(N_HIDDEN, N_HIDDEN),
                                  torch.nn.Dropout(0.5), torch.nn.ReLU(),
                                  torch.nn.Linear(N_HIDDEN, 1))
print(net_overfitting)
print(net_dropped)
optimizer_ofit = torch.optim.Adam(net_overfitting.parameters(), lr=0.01)
optimizer_drop = torch.optim.Adam(net_dropped.parameters(), lr=0.01)
loss_func = torch.nn.MSELoss()
for t in range(100):
    pred_ofit = net_overfitting(x)
    pred_drop = net_dropped(x)
    loss_ofit = loss_func(pred_ofit, y)
    loss_drop = loss_func(pred_drop, y)
    optimizer_ofit.zero_grad()
    optimizer_drop.zero_grad()
    loss_ofit.backward()
    loss_drop.backward()
    optimizer_ofit.step()
    optimizer_drop.step()
    if t % 25 == 0:
        net_overfitting.eval()
        net_dropped.eval()
        test_pred_ofit = net_overfitting(test_x)
        test_pred_drop = net_dropped(test_x)
        print('overfitting loss=%.4f' % loss_func(test_pred_ofit, test_y).data.numpy(),
              'dropout loss=%.4f' % loss_func(test_pred_drop, test_y).data.numpy())
        net_overfitting.train()
        net_dropped.train()

N_HIDDEN, B_INIT = 4, -0.2
xs = np.linspace(-7, 10, 256)[:, np.newaxis]
ys = np.square(xs) - 5 + np.random.normal(0, 2, xs.shape)
train_x, train_y = torch.from_numpy(xs).float(), torch.from_numpy(ys).float()
test_x = torch.from_numpy(np.linspace(-7, 10, 50)[:, np.newaxis]).float()
test_y = test_x.pow(2) - 5
train_loader = Data.DataLoader(dataset=Data.TensorDataset(train_x, train_y), batch_size=64,
                               shuffle=True)


class BNNet(nn.Module):
    def __init__(self, batch_normalization=False):
        super(BNNet, self).__init__()
        self.do_bn = batch_normalization
        self.fcs = []
        self.bns = []
        self.bn_input = nn.BatchNorm1d(1, momentum=0.5)
        for i in range(N_HIDDEN):
            input_size = 1 if i == 0 else 10
            fc = nn.Linear(input_size, 10)
            setattr(self, 'fc%i' % i, fc)
            self._set_init(fc)
            self.fcs.append(fc)
            if self.do_bn:
                bn = nn.BatchNorm1d(10, momentum=0.5)
                setattr(self, 'bn%i' % i, bn)
                self.bns.append(bn)
        self.predict = nn.Linear(10, 1)
        self._set_init(self.predict)

    def _set_init(self, layer):
        init.normal_(layer.weight, mean=0., std=.1)
        init.constant_(layer.bias, B_INIT)

    def forward(self, x):
        pre_activation = [x]
        if self.do_bn:
            x = self.bn_input(x)
        layer_input = [x]
        for i in range(N_HIDDEN):
            x = self.fcs[i](x)
            pre_activation.append(x)
            if self.do_bn:
                x = self.bns[i](x)
            x = torch.tanh(x)
            layer_input.append(x)
        out = self.predict(x)
        return out, layer_input, pre_activation


nets = [BNNet(batch_normalization=False), BNNet(batch_normalization=True)]
print(nets[1])
opts = [torch.optim.Adam(net.parameters(), lr=0.03) for net in nets]
loss_func = torch.nn.MSELoss()
losses = [[], []]
for epoch in range(4):
    print('Epoch: ', epoch)
    for net, l in zip(nets, losses):
        net.eval()
        pred, layer_input, pre_act = net(test_x)
        l.append(loss_func(pred, test_y).data.item())
        net.train()
    for step, (b_x, b_y) in enumerate(train_loader):
        for net, opt in zip(nets, opts):
            pred, _, _ = net(b_x)
            loss = loss_func(pred, b_y)
            opt.zero_grad()
            loss.backward()
            opt.step()
print([round(v, 2) for v in losses[1]], pre_act[1].data.numpy().ravel()[:3])
print(nets[1].bn0.running_mean[:3], nets[1].bn_input.num_batches_tracked)
assert losses[1][-1] < losses[1][0]
