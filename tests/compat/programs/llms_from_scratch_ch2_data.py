"""Sebastian Raschka's "Build a Large Language Model (From Scratch)", chapter 2: a regex tokenizer
(SimpleTokenizerV2 with <|endoftext|> and <|unk|>), GPTDatasetV1 (a sliding window of
max_length tokens with a stride; torch.tensor(input_chunk) in lists), create_dataloader_v1
(DataLoader(batch_size, shuffle, drop_last, num_workers=0)), iter(dataloader) / next(data_iter),
torch.nn.Embedding for tokens and torch.arange(max_length) positions, and the embedding lookup
seen as one-hot @ weight."""
import re

import torch
from torch.utils.data import Dataset, DataLoader

raw_text = ("I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough"
            "--so it was no great surprise to me to hear that, in the height of his glory, he had "
            "dropped his painting, married a rich widow, and established himself in a villa on the "
            "Riviera. ") * 4
print("Total number of character:", len(raw_text))
print(raw_text[:99])

preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', raw_text)
preprocessed = [item.strip() for item in preprocessed if item.strip()]
print(preprocessed[:30])
all_tokens = sorted(list(set(preprocessed)))
all_tokens.extend(["<|endoftext|>", "<|unk|>"])
vocab = {token: integer for integer, token in enumerate(all_tokens)}
print(len(vocab.items()))
for i, item in enumerate(list(vocab.items())[-5:]):
    print(item)


class SimpleTokenizerV2:
    def __init__(self, vocab):
        self.str_to_int = vocab
        self.int_to_str = {i: s for s, i in vocab.items()}

    def encode(self, text):
        preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', text)
        preprocessed = [item.strip() for item in preprocessed if item.strip()]
        preprocessed = [item if item in self.str_to_int else "<|unk|>" for item in preprocessed]
        ids = [self.str_to_int[s] for s in preprocessed]
        return ids

    def decode(self, ids):
        text = " ".join([self.int_to_str[i] for i in ids])
        # Replace spaces before the specified punctuations
        text = re.sub(r'\s+([,.:;?!"()\'])', r'\1', text)
        return text


tokenizer = SimpleTokenizerV2(vocab)
text1 = "Hello, do you like tea?"
text2 = "In the sunlit terraces of the palace."
text = " <|endoftext|> ".join((text1, text2))
print(text)
print(tokenizer.encode(text))
print(tokenizer.decode(tokenizer.encode(text)))
assert tokenizer.encode("Hello")[0] == vocab["<|unk|>"]


class GPTDatasetV1(Dataset):
    def __init__(self, txt, tokenizer, max_length, stride):
        self.input_ids = []
        self.target_ids = []
        token_ids = tokenizer.encode(txt)
        for i in range(0, len(token_ids) - max_length, stride):
            input_chunk = token_ids[i:i + max_length]
            target_chunk = token_ids[i + 1: i + max_length + 1]
            self.input_ids.append(torch.tensor(input_chunk))
            self.target_ids.append(torch.tensor(target_chunk))

    def __len__(self):
        return len(self.input_ids)

    def __getitem__(self, idx):
        return self.input_ids[idx], self.target_ids[idx]


def create_dataloader_v1(txt, batch_size=4, max_length=256, stride=128, shuffle=True,
                         drop_last=True, num_workers=0):
    dataset = GPTDatasetV1(txt, tokenizer, max_length, stride)
    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=shuffle,
                            drop_last=drop_last, num_workers=num_workers)
    return dataloader


enc_text = tokenizer.encode(raw_text)
print(len(enc_text))
context_size = 4
x = enc_text[:context_size]
y = enc_text[1:context_size + 1]
print(f"x: {x}")
print(f"y:      {y}")
for i in range(1, context_size + 1):
    context = enc_text[:i]
    desired = enc_text[i]
    print(tokenizer.decode(context), "---->", tokenizer.decode([desired]))

dataloader = create_dataloader_v1(raw_text, batch_size=1, max_length=4, stride=1, shuffle=False)
data_iter = iter(dataloader)
first_batch = next(data_iter)
print(first_batch)
second_batch = next(data_iter)
print(second_batch)
assert torch.equal(first_batch[0][0, 1:], second_batch[0][0, :-1])

dataloader = create_dataloader_v1(raw_text, batch_size=8, max_length=4, stride=4, shuffle=False)
data_iter = iter(dataloader)
inputs, targets = next(data_iter)
print("Inputs:\n", inputs)
print("\nTargets:\n", targets)
assert inputs.dtype == torch.int64 and inputs.shape == (8, 4)
assert len(dataloader) == (len(enc_text) - 4 + 3) // 4 // 8

input_ids = torch.tensor([2, 3, 5, 1])
vocab_size = 6
output_dim = 3
torch.manual_seed(123)
embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
print(embedding_layer.weight)
print(embedding_layer(torch.tensor([3])))
print(embedding_layer(input_ids))
onehot = torch.nn.functional.one_hot(input_ids, num_classes=vocab_size)
print(onehot)
assert torch.allclose(onehot.float() @ embedding_layer.weight, embedding_layer(input_ids))

vocab_size = len(vocab)
output_dim = 8
token_embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
max_length = 4
dataloader = create_dataloader_v1(raw_text, batch_size=8, max_length=max_length,
                                  stride=max_length, shuffle=False)
data_iter = iter(dataloader)
inputs, targets = next(data_iter)
print("Token IDs:\n", inputs)
print("\nInputs shape:\n", inputs.shape)
token_embeddings = token_embedding_layer(inputs)
print(token_embeddings.shape)
context_length = max_length
pos_embedding_layer = torch.nn.Embedding(context_length, output_dim)
pos_embeddings = pos_embedding_layer(torch.arange(max_length))
print(pos_embeddings.shape)
input_embeddings = token_embeddings + pos_embeddings
print(input_embeddings.shape)
assert input_embeddings.shape == torch.Size([8, 4, 8])

torch.manual_seed(123)
loader = create_dataloader_v1(raw_text, batch_size=2, max_length=4, stride=2, shuffle=True)
seen = [x for x, _ in loader]
print(len(seen), seen[0])
assert all(s.shape == (2, 4) for s in seen)
