"""mrdbourke/pytorch-deep-learning (Zero to Mastery), 08_pytorch_paper_replicating.ipynb (ViT) at toy
size (32x32 images, patch 8, D=48, 4 heads, 2 layers): the patch embedding via nn.Conv2d(
kernel_size=patch_size, stride=patch_size, padding=0) + nn.Flatten(start_dim=2, end_dim=3) +
permute(0, 2, 1), the class token nn.Parameter(torch.ones(batch_size, 1, D), requires_grad=True)
and torch.cat((class_token, x), dim=1), position embedding added by broadcasting,
MultiheadSelfAttentionBlock (nn.LayerNorm(normalized_shape=...), nn.MultiheadAttention(
embed_dim=..., num_heads=..., dropout=..., batch_first=True) called with query=/key=/value=/
need_weights=False), MLPBlock (nn.GELU, nn.Dropout(p=...)), the residual TransformerEncoderBlock,
nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation="gelu",
batch_first=True, norm_first=True), the ViT class with nn.Parameter(data=torch.randn(...)),
class_embedding.expand(batch_size, -1, -1), nn.Sequential(*[blocks]), x[:, 0] classifier; the
going_modular engine loop with torch.optim.Adam(params=..., lr=3e-3, betas=(0.9, 0.999),
weight_decay=0.3), and the feature-extractor step: every parameter.requires_grad = False, then a
new head (model.heads = nn.Linear(...)) trained alone."""
import torch
from torch import nn


def set_seeds(seed: int = 42):
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)


img_size, patch_size, D, heads, mlp_size, layers = 32, 8, 48, 4, 96, 2
class_names = ["pizza", "steak", "sushi"]
set_seeds()
image = torch.rand(3, img_size, img_size)
height, width = image.shape[1], image.shape[2]
number_of_patches = int((height * width) / patch_size**2)
print(f"Number of patches (N) with image height (H={height}), width (W={width}) and patch size "
      f"(P={patch_size}): {number_of_patches}")
embedding_layer_input_shape = (height, width, 3)
embedding_layer_output_shape = (number_of_patches, patch_size**2 * 3)


class PatchEmbedding(nn.Module):
    def __init__(self,
                 in_channels: int = 3,
                 patch_size: int = 16,
                 embedding_dim: int = 768):
        super().__init__()
        self.patcher = nn.Conv2d(in_channels=in_channels,
                                 out_channels=embedding_dim,
                                 kernel_size=patch_size,
                                 stride=patch_size,
                                 padding=0)
        self.flatten = nn.Flatten(start_dim=2,
                                  end_dim=3)

    def forward(self, x):
        image_resolution = x.shape[-1]
        assert image_resolution % patch_size == 0, \
            f"Input image size must be divisible by patch size, image shape: {image_resolution}, " \
            f"patch size: {patch_size}"
        x_patched = self.patcher(x)
        x_flattened = self.flatten(x_patched)
        return x_flattened.permute(0, 2, 1)


set_seeds()
patchify = PatchEmbedding(in_channels=3, patch_size=patch_size, embedding_dim=D)
print(f"Input image shape: {image.unsqueeze(0).shape}")
patch_embedded_image = patchify(image.unsqueeze(0))
print(f"Output patch embedding shape: {patch_embedded_image.shape}")
assert patch_embedded_image.shape == (1, number_of_patches, D)
try:
    patchify(torch.randn(1, 3, 36, 36))
    raise RuntimeError("a 36x36 image must not pass the patch-size assert")
except AssertionError as e:
    print(e)

batch_size = patch_embedded_image.shape[0]
embedding_dimension = patch_embedded_image.shape[-1]
class_token = nn.Parameter(torch.ones(batch_size, 1, embedding_dimension),
                           requires_grad=True)
patch_embedded_image_with_class_embedding = torch.cat((class_token, patch_embedded_image), dim=1)
print(f"Sequence of patch embeddings with class token prepended shape: "
      f"{patch_embedded_image_with_class_embedding.shape} -> [batch_size, number_of_patches, "
      f"embedding_dimension]")
position_embedding = nn.Parameter(torch.ones(1, number_of_patches + 1, embedding_dimension),
                                  requires_grad=True)
patch_and_position_embedding = patch_embedded_image_with_class_embedding + position_embedding
assert patch_and_position_embedding.shape == (1, number_of_patches + 1, D)
assert patch_and_position_embedding.grad_fn is not None


class MultiheadSelfAttentionBlock(nn.Module):
    def __init__(self,
                 embedding_dim: int = 768,
                 num_heads: int = 12,
                 attn_dropout: float = 0):
        super().__init__()
        self.layer_norm = nn.LayerNorm(normalized_shape=embedding_dim)
        self.multihead_attn = nn.MultiheadAttention(embed_dim=embedding_dim,
                                                    num_heads=num_heads,
                                                    dropout=attn_dropout,
                                                    batch_first=True)

    def forward(self, x):
        x = self.layer_norm(x)
        attn_output, _ = self.multihead_attn(query=x,
                                             key=x,
                                             value=x,
                                             need_weights=False)
        return attn_output


class MLPBlock(nn.Module):
    def __init__(self,
                 embedding_dim: int = 768,
                 mlp_size: int = 3072,
                 dropout: float = 0.1):
        super().__init__()
        self.layer_norm = nn.LayerNorm(normalized_shape=embedding_dim)
        self.mlp = nn.Sequential(
            nn.Linear(in_features=embedding_dim,
                      out_features=mlp_size),
            nn.GELU(),
            nn.Dropout(p=dropout),
            nn.Linear(in_features=mlp_size,
                      out_features=embedding_dim),
            nn.Dropout(p=dropout)
        )

    def forward(self, x):
        x = self.layer_norm(x)
        x = self.mlp(x)
        return x


class TransformerEncoderBlock(nn.Module):
    def __init__(self,
                 embedding_dim: int = 768,
                 num_heads: int = 12,
                 mlp_size: int = 3072,
                 mlp_dropout: float = 0.1,
                 attn_dropout: float = 0):
        super().__init__()
        self.msa_block = MultiheadSelfAttentionBlock(embedding_dim=embedding_dim,
                                                     num_heads=num_heads,
                                                     attn_dropout=attn_dropout)
        self.mlp_block = MLPBlock(embedding_dim=embedding_dim,
                                  mlp_size=mlp_size,
                                  dropout=mlp_dropout)

    def forward(self, x):
        x = self.msa_block(x) + x
        x = self.mlp_block(x) + x
        return x


msa = MultiheadSelfAttentionBlock(embedding_dim=D, num_heads=heads)
patched_image_through_msa_block = msa(patch_and_position_embedding)
print(f"Input shape of MSA block: {patch_and_position_embedding.shape}")
print(f"Output shape MSA block: {patched_image_through_msa_block.shape}")
mlp_block = MLPBlock(embedding_dim=D, mlp_size=mlp_size, dropout=0.1)
patched_image_through_mlp_block = mlp_block(patched_image_through_msa_block)
assert patched_image_through_mlp_block.shape == patch_and_position_embedding.shape

set_seeds()
transformer_encoder_block = TransformerEncoderBlock(embedding_dim=D, num_heads=heads,
                                                    mlp_size=mlp_size)
torch_transformer_encoder_layer = nn.TransformerEncoderLayer(d_model=D,
                                                             nhead=heads,
                                                             dim_feedforward=mlp_size,
                                                             dropout=0.1,
                                                             activation="gelu",
                                                             batch_first=True,
                                                             norm_first=True)
print(torch_transformer_encoder_layer)
# the same block, by hand and by nn.TransformerEncoderLayer, once the weights are shared
sd = transformer_encoder_block.state_dict()
mapped = {"self_attn.in_proj_weight": sd["msa_block.multihead_attn.in_proj_weight"],
          "self_attn.in_proj_bias": sd["msa_block.multihead_attn.in_proj_bias"],
          "self_attn.out_proj.weight": sd["msa_block.multihead_attn.out_proj.weight"],
          "self_attn.out_proj.bias": sd["msa_block.multihead_attn.out_proj.bias"],
          "linear1.weight": sd["mlp_block.mlp.0.weight"], "linear1.bias": sd["mlp_block.mlp.0.bias"],
          "linear2.weight": sd["mlp_block.mlp.3.weight"], "linear2.bias": sd["mlp_block.mlp.3.bias"],
          "norm1.weight": sd["msa_block.layer_norm.weight"],
          "norm1.bias": sd["msa_block.layer_norm.bias"],
          "norm2.weight": sd["mlp_block.layer_norm.weight"],
          "norm2.bias": sd["mlp_block.layer_norm.bias"]}
torch_transformer_encoder_layer.load_state_dict(mapped)
transformer_encoder_block.eval()
torch_transformer_encoder_layer.eval()
with torch.no_grad():
    a = transformer_encoder_block(patch_and_position_embedding)
    b = torch_transformer_encoder_layer(patch_and_position_embedding)
print((a - b).abs().max())
assert torch.allclose(a, b, atol=1e-5)


class ViT(nn.Module):
    def __init__(self,
                 img_size: int = 224,
                 in_channels: int = 3,
                 patch_size: int = 16,
                 num_transformer_layers: int = 12,
                 embedding_dim: int = 768,
                 mlp_size: int = 3072,
                 num_heads: int = 12,
                 attn_dropout: float = 0,
                 mlp_dropout: float = 0.1,
                 embedding_dropout: float = 0.1,
                 num_classes: int = 1000):
        super().__init__()
        assert img_size % patch_size == 0, \
            f"Image size must be divisible by patch size, image size: {img_size}, patch size: {patch_size}."
        self.num_patches = (img_size * img_size) // patch_size**2
        self.class_embedding = nn.Parameter(data=torch.randn(1, 1, embedding_dim),
                                            requires_grad=True)
        self.position_embedding = nn.Parameter(data=torch.randn(1, self.num_patches + 1, embedding_dim),
                                               requires_grad=True)
        self.embedding_dropout = nn.Dropout(p=embedding_dropout)
        self.patch_embedding = PatchEmbedding(in_channels=in_channels,
                                              patch_size=patch_size,
                                              embedding_dim=embedding_dim)
        self.transformer_encoder = nn.Sequential(*[TransformerEncoderBlock(embedding_dim=embedding_dim,
                                                                           num_heads=num_heads,
                                                                           mlp_size=mlp_size,
                                                                           mlp_dropout=mlp_dropout)
                                                   for _ in range(num_transformer_layers)])
        self.classifier = nn.Sequential(
            nn.LayerNorm(normalized_shape=embedding_dim),
            nn.Linear(in_features=embedding_dim,
                      out_features=num_classes)
        )

    def forward(self, x):
        batch_size = x.shape[0]
        class_token = self.class_embedding.expand(batch_size, -1, -1)
        x = self.patch_embedding(x)
        x = torch.cat((class_token, x), dim=1)
        x = self.position_embedding + x
        x = self.embedding_dropout(x)
        x = self.transformer_encoder(x)
        x = self.classifier(x[:, 0])
        return x


batch_size = 32
class_token_embedding_single = nn.Parameter(data=torch.randn(1, 1, D))
class_token_embedding_expanded = class_token_embedding_single.expand(batch_size, -1, -1)
print(f"Shape of class token embedding single: {class_token_embedding_single.shape}")
print(f"Shape of class token embedding expanded: {class_token_embedding_expanded.shape}")
assert class_token_embedding_expanded.shape == (32, 1, D)

set_seeds()
random_image_tensor = torch.randn(1, 3, img_size, img_size)
vit = ViT(img_size=img_size, patch_size=patch_size, num_transformer_layers=layers,
          embedding_dim=D, mlp_size=mlp_size, num_heads=heads, num_classes=len(class_names))
print(vit(random_image_tensor))
n_params = sum(p.numel() for p in vit.parameters())
print(f"{n_params:,} parameters")

# data: 3 classes told apart by one bright quadrant
g = torch.Generator().manual_seed(0)
y_all = torch.randint(0, 3, (48,), generator=g)
X_all = torch.rand(48, 3, img_size, img_size, generator=g) * 0.3
for i, c in enumerate(y_all.tolist()):
    X_all[i, :, (c // 2) * 16:(c // 2) * 16 + 16, (c % 2) * 16:(c % 2) * 16 + 16] += 0.7
ds = torch.utils.data.TensorDataset(X_all, y_all)
train_dataloader = torch.utils.data.DataLoader(ds, batch_size=16, shuffle=True)
device = "cuda" if torch.cuda.is_available() else "cpu"


def train_epoch(model, optimizer, loss_fn):
    model.train()
    train_loss, train_acc = 0, 0
    for X, y in train_dataloader:
        X, y = X.to(device), y.to(device)
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        y_pred_class = torch.argmax(torch.softmax(y_pred, dim=1), dim=1)
        train_acc += (y_pred_class == y).sum().item() / len(y_pred)
    return train_loss / len(train_dataloader), train_acc / len(train_dataloader)


optimizer = torch.optim.Adam(params=vit.parameters(),
                             lr=3e-3,
                             betas=(0.9, 0.999),
                             weight_decay=0.3)
loss_fn = torch.nn.CrossEntropyLoss()
set_seeds()
losses = []
for epoch in range(4):
    train_loss, train_acc = train_epoch(vit, optimizer, loss_fn)
    losses.append(train_loss)
    print(f"Epoch: {epoch+1} | train_loss: {train_loss:.4f} | train_acc: {train_acc:.4f}")
assert all(l == l for l in losses)

# feature extractor: freeze the body, replace and train the head
for parameter in vit.parameters():
    parameter.requires_grad = False
set_seeds()
vit.heads = nn.Linear(in_features=D, out_features=len(class_names)).to(device)
vit.classifier[1] = vit.heads
trainable = [n for n, p in vit.named_parameters() if p.requires_grad]
print(trainable)
assert trainable == ["classifier.1.weight", "classifier.1.bias"]
before = vit.patch_embedding.patcher.weight.clone()
optimizer = torch.optim.Adam(params=[p for p in vit.parameters() if p.requires_grad], lr=1e-2)
for epoch in range(3):
    train_loss, train_acc = train_epoch(vit, optimizer, loss_fn)
    print(f"head epoch {epoch+1} | train_loss: {train_loss:.4f} | train_acc: {train_acc:.4f}")
assert torch.equal(before, vit.patch_embedding.patcher.weight)
assert vit.heads.weight.grad is not None
