"""PyTorch tutorial "Knowledge Distillation Tutorial" (beginner_source/
knowledge_distillation_tutorial.py), scaled down (16x16 synthetic 'CIFAR' images, narrower
DeepNN teacher and LightNN student with the same layer layout): train / test with Adam and
torch.max(outputs.data, 1); the parameter counts formatted with "{:,}"; equal initialisation
checked through torch.norm(features[0].weight); train_knowledge_distillation with soft targets
-torch.sum(soft_targets * soft_prob) / soft_prob.size()[0] * (T**2) under torch.no_grad() teacher
logits; the cosine variant (torch.nn.functional.avg_pool1d on the flattened teacher features,
nn.CosineEmbeddingLoss with target=torch.ones(n)); and the hint-based variant with a Conv2d
regressor and nn.MSELoss, with load_state_dict(nn_deep.state_dict()) into the modified teachers."""
import torch
import torch.nn as nn
import torch.optim as optim

device = "cuda" if torch.cuda.is_available() else "cpu"


def make_split(n, generator):
    """Synthetic CIFAR: class c lights channel c % 3 in band c // 3 of four, on noise."""
    labels = torch.randint(0, 10, (n,), generator=generator)
    x = torch.rand(n, 3, 16, 16, generator=generator) * 0.6
    for i, c in enumerate(labels.tolist()):
        x[i, c % 3, 4 * (c // 3):4 * (c // 3) + 4, :] += 0.8
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    return torch.utils.data.TensorDataset((x - mean) / std, labels)


g = torch.Generator().manual_seed(0)
train_dataset = make_split(320, g)
test_dataset = make_split(160, g)
train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=32, shuffle=True)
test_loader = torch.utils.data.DataLoader(test_dataset, batch_size=32, shuffle=False)


# Deeper neural network class to be used as teacher
class DeepNN(nn.Module):
    def __init__(self, num_classes=10):
        super(DeepNN, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(512, 64),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(64, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x


# Lightweight neural network class to be used as student
class LightNN(nn.Module):
    def __init__(self, num_classes=10):
        super(LightNN, self).__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Linear(256, 32),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(32, num_classes)
        )

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x


def train(model, train_loader, epochs, learning_rate, device):
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=learning_rate)

    model.to(device)
    model.train()

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        print(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")


def test(model, test_loader, device):
    model.to(device)
    model.eval()

    correct = 0
    total = 0

    with torch.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            outputs = model(inputs)
            _, predicted = torch.max(outputs.data, 1)

            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    accuracy = 100 * correct / total
    print(f"Test Accuracy: {accuracy:.2f}%")
    return accuracy


torch.manual_seed(42)
nn_deep = DeepNN(num_classes=10)
train(nn_deep, train_loader, epochs=4, learning_rate=0.003, device=device)
test_accuracy_deep = test(nn_deep, test_loader, device)

# Instantiate the lightweight network
torch.manual_seed(42)
nn_light = LightNN(num_classes=10)

torch.manual_seed(42)
new_nn_light = LightNN(num_classes=10)

# Print the norm of the first layer of the initial lightweight model
print("Norm of 1st layer of nn_light:", torch.norm(nn_light.features[0].weight).item())
# Print the norm of the first layer of the new lightweight model
print("Norm of 1st layer of new_nn_light:", torch.norm(new_nn_light.features[0].weight).item())
assert torch.norm(nn_light.features[0].weight).item() == \
    torch.norm(new_nn_light.features[0].weight).item()

total_params_deep = "{:,}".format(sum(p.numel() for p in nn_deep.parameters()))
print(f"DeepNN parameters: {total_params_deep}")
total_params_light = "{:,}".format(sum(p.numel() for p in nn_light.parameters()))
print(f"LightNN parameters: {total_params_light}")
assert total_params_deep == "43,210" and total_params_light == "11,322"

train(nn_light, train_loader, epochs=4, learning_rate=0.003, device=device)
test_accuracy_light_ce = test(nn_light, test_loader, device)

print(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
print(f"Student accuracy: {test_accuracy_light_ce:.2f}%")
assert test_accuracy_deep > 80


def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T,
                                 soft_target_loss_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)

    teacher.to(device)
    student.to(device)
    teacher.eval()  # Teacher set to evaluation mode
    student.train() # Student to train mode

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()

            # Forward pass with the teacher model - do not save gradients here as we do not
            # change the teacher's weights
            with torch.no_grad():
                teacher_logits = teacher(inputs)

            # Forward pass with the student model
            student_logits = student(inputs)

            #Soften the student logits by applying softmax first and log() second
            soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
            soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)

            # Calculate the soft targets loss. Scaled by T**2 as suggested by the authors of
            # the paper "Distilling the knowledge in a neural network"
            soft_targets_loss = -torch.sum(soft_targets * soft_prob) / soft_prob.size()[0] * (T**2)

            # Calculate the true label loss
            label_loss = ce_loss(student_logits, labels)

            # Weighted sum of the two losses
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        print(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
    # the soft-target term is the KL divergence plus the teacher's entropy, times T**2
    kl = nn.functional.kl_div(soft_prob, soft_targets, reduction="batchmean")
    entropy = -(soft_targets * soft_targets.log()).sum() / soft_prob.size(0)
    assert torch.allclose(soft_targets_loss, (kl + entropy) * T ** 2, rtol=1e-4)


teacher_before = {k: v.clone() for k, v in nn_deep.state_dict().items()}
train_knowledge_distillation(teacher=nn_deep, student=new_nn_light, train_loader=train_loader,
                             epochs=4, learning_rate=0.003, T=2, soft_target_loss_weight=0.25,
                             ce_loss_weight=0.75, device=device)
test_accuracy_light_ce_and_kd = test(new_nn_light, test_loader, device)
assert all(torch.equal(v, teacher_before[k]) for k, v in nn_deep.state_dict().items())
assert test_accuracy_light_ce_and_kd > 60


class ModifiedDeepNNCosine(nn.Module):
    def __init__(self, num_classes=10):
        super(ModifiedDeepNNCosine, self).__init__()
        self.features = DeepNN().features
        self.classifier = DeepNN().classifier

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        flattened_conv_output_after_pooling = torch.nn.functional.avg_pool1d(
            flattened_conv_output, 2)
        return x, flattened_conv_output_after_pooling


# Create a similar student class where we return a tuple. We do not apply pooling after
# flattening.
class ModifiedLightNNCosine(nn.Module):
    def __init__(self, num_classes=10):
        super(ModifiedLightNNCosine, self).__init__()
        self.features = LightNN().features
        self.classifier = LightNN().classifier

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x, flattened_conv_output


# We do not have to train the modified deep network from scratch of course, we just load its
# weights from the trained instance
modified_nn_deep = ModifiedDeepNNCosine(num_classes=10)
modified_nn_deep.load_state_dict(nn_deep.state_dict())

print("Norm of 1st layer for deep_nn:", torch.norm(nn_deep.features[0].weight).item())
print("Norm of 1st layer for modified_deep_nn:",
      torch.norm(modified_nn_deep.features[0].weight).item())
assert torch.equal(nn_deep.features[0].weight, modified_nn_deep.features[0].weight)

torch.manual_seed(42)
modified_light_nn = ModifiedLightNNCosine(num_classes=10)
print("Norm of 1st layer:", torch.norm(modified_light_nn.features[0].weight).item())

sample = next(iter(test_loader))[0]
with torch.no_grad():
    logits, pooled = modified_nn_deep.eval()(sample)
    flat = torch.flatten(nn_deep.features(sample), 1)
assert pooled.shape == (32, 256) and torch.allclose(logits, nn_deep.eval()(sample))
assert torch.allclose(pooled, (flat[:, 0::2] + flat[:, 1::2]) / 2)


def train_cosine_loss(teacher, student, train_loader, epochs, learning_rate,
                      hidden_rep_loss_weight, ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    cosine_loss = nn.CosineEmbeddingLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)

    teacher.to(device)
    student.to(device)
    teacher.eval()  # Teacher set to evaluation mode
    student.train() # Student to train mode
    cosines = []

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()

            # Forward pass with the teacher model and keep only the hidden representation
            with torch.no_grad():
                _, teacher_hidden_representation = teacher(inputs)

            # Forward pass with the student model
            student_logits, student_hidden_representation = student(inputs)

            # Calculate the cosine loss. Target is a vector of ones. From the loss formula
            # above we can see that is the case where loss minimization leads to cosine
            # similarity increase.
            hidden_rep_loss = cosine_loss(student_hidden_representation,
                                          teacher_hidden_representation,
                                          target=torch.ones(inputs.size(0)).to(device))
            cosines.append(hidden_rep_loss.item())
            # (1 - cos) averaged over the batch, as the CosineEmbeddingLoss formula says
            cos = nn.functional.cosine_similarity(student_hidden_representation,
                                                  teacher_hidden_representation)
            assert torch.allclose(hidden_rep_loss, (1 - cos).mean(), atol=1e-6)

            # Calculate the true label loss
            label_loss = ce_loss(student_logits, labels)

            # Weighted sum of the two losses
            loss = hidden_rep_loss_weight * hidden_rep_loss + ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        print(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
    return cosines


def test_multiple_outputs(model, test_loader, device):
    model.to(device)
    model.eval()

    correct = 0
    total = 0

    with torch.no_grad():
        for inputs, labels in test_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            outputs, _ = model(inputs) # In this line we disregard the second tensor of the tuple
            _, predicted = torch.max(outputs.data, 1)

            total += labels.size(0)
            correct += (predicted == labels).sum().item()

    accuracy = 100 * correct / total
    print(f"Test Accuracy: {accuracy:.2f}%")
    return accuracy


cosines = train_cosine_loss(teacher=modified_nn_deep, student=modified_light_nn,
                            train_loader=train_loader, epochs=4, learning_rate=0.003,
                            hidden_rep_loss_weight=0.25, ce_loss_weight=0.75, device=device)
test_accuracy_light_ce_and_cosine_loss = test_multiple_outputs(modified_light_nn, test_loader,
                                                               device)
assert sum(cosines[-5:]) < sum(cosines[:5])   # the representations align


class ModifiedDeepNNRegressor(nn.Module):
    def __init__(self, num_classes=10):
        super(ModifiedDeepNNRegressor, self).__init__()
        self.features = DeepNN().features
        self.classifier = DeepNN().classifier

    def forward(self, x):
        x = self.features(x)
        conv_feature_map = x
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x, conv_feature_map


class ModifiedLightNNRegressor(nn.Module):
    def __init__(self, num_classes=10):
        super(ModifiedLightNNRegressor, self).__init__()
        self.features = LightNN().features
        # Include an extra regressor (in our case linear)
        self.regressor = nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=3, padding=1)
        )
        self.classifier = LightNN().classifier

    def forward(self, x):
        x = self.features(x)
        regressor_output = self.regressor(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x, regressor_output


def train_mse_loss(teacher, student, train_loader, epochs, learning_rate, feature_map_weight,
                   ce_loss_weight, device):
    ce_loss = nn.CrossEntropyLoss()
    mse_loss = nn.MSELoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)

    teacher.to(device)
    student.to(device)
    teacher.eval()  # Teacher set to evaluation mode
    student.train() # Student to train mode
    hint_losses = []

    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)

            optimizer.zero_grad()

            # Again ignore teacher logits
            with torch.no_grad():
                _, teacher_feature_map = teacher(inputs)

            # Forward pass with the student model
            student_logits, regressor_feature_map = student(inputs)

            # Calculate the loss
            hidden_rep_loss = mse_loss(regressor_feature_map, teacher_feature_map)
            hint_losses.append(hidden_rep_loss.item())

            # Calculate the true label loss
            label_loss = ce_loss(student_logits, labels)

            # Weighted sum of the two losses
            loss = feature_map_weight * hidden_rep_loss + ce_loss_weight * label_loss

            loss.backward()
            optimizer.step()

            running_loss += loss.item()

        print(f"Epoch {epoch+1}/{epochs}, Loss: {running_loss / len(train_loader)}")
    return hint_losses


torch.manual_seed(42)
modified_light_nn_mse = ModifiedLightNNRegressor(num_classes=10)

modified_nn_deep_reg = ModifiedDeepNNRegressor(num_classes=10)
modified_nn_deep_reg.load_state_dict(nn_deep.state_dict())

hint_losses = train_mse_loss(teacher=modified_nn_deep_reg, student=modified_light_nn_mse,
                             train_loader=train_loader, epochs=4, learning_rate=0.003,
                             feature_map_weight=0.25, ce_loss_weight=0.75, device=device)
test_accuracy_light_ce_and_mse_loss = test_multiple_outputs(modified_light_nn_mse, test_loader,
                                                            device)
assert sum(hint_losses[-5:]) < sum(hint_losses[:5])

print(f"Teacher accuracy: {test_accuracy_deep:.2f}%")
print(f"Student accuracy without teacher: {test_accuracy_light_ce:.2f}%")
print(f"Student accuracy with CE + KD: {test_accuracy_light_ce_and_kd:.2f}%")
print(f"Student accuracy with CE + CosineLoss: {test_accuracy_light_ce_and_cosine_loss:.2f}%")
print(f"Student accuracy with CE + RegressorMSE: {test_accuracy_light_ce_and_mse_loss:.2f}%")
assert min(test_accuracy_light_ce, test_accuracy_light_ce_and_cosine_loss,
           test_accuracy_light_ce_and_mse_loss) > 50
