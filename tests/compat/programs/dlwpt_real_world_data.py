"""The book Deep Learning with PyTorch (Stevens, Antiga, Viehmann), chapter 4, on synthetic stand-ins
for its files: an image batch via torch.zeros(batch_size, 3, 256, 256, dtype=torch.uint8) filled
from numpy with torch.from_numpy(img_arr).permute(2, 0, 1), per-channel normalisation with
mean/std over dims; the wine table with torch.from_numpy(np.loadtxt-like array), target.long(),
one-hot by target_onehot.scatter_(1, target.unsqueeze(1), 1.0), torch.le/torch.gt masks and
torch.lt(...).sum(0); the bike-sharing series with bikes.view(-1, 24, bikes.shape[1]),
.transpose(1, 2), bikes[:24].long(), weather one-hot by scatter_(dim=1, index=...-1, value=1.0),
torch.cat along dim 1, daily_bikes.unfold-free windows and min-max/standardisation in place; and
text one-hot encoding of characters and words with letter_t[i][letter_index] = 1."""
import numpy as np
import torch

torch.set_printoptions(edgeitems=2, threshold=50, linewidth=75)
rng = np.random.RandomState(0)

# 4.1 images
batch_size = 3
batch = torch.zeros(batch_size, 3, 32, 32, dtype=torch.uint8)
for i in range(batch_size):
    img_arr = rng.randint(0, 256, (32, 32, 3)).astype(np.uint8)
    img_t = torch.from_numpy(img_arr)
    img_t = img_t.permute(2, 0, 1)
    img_t = img_t[:3]
    batch[i] = img_t
batch = batch.float()
batch /= 255.0
n_channels = batch.shape[1]
for c in range(n_channels):
    mean = torch.mean(batch[:, c])
    std = torch.std(batch[:, c])
    batch[:, c] = (batch[:, c] - mean) / std
assert torch.allclose(batch.mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-5)
assert torch.allclose(batch.std(dim=(0, 2, 3)), torch.ones(3), atol=1e-4)

# 4.3 tabular data: the wine quality table
wineq_numpy = np.concatenate([rng.uniform(0, 10, (200, 11)), rng.randint(3, 9, (200, 1))], axis=1)
wineq_numpy = wineq_numpy.astype(np.float32)
wineq = torch.from_numpy(wineq_numpy)
assert wineq.shape == (200, 12) and wineq.dtype == torch.float32
data = wineq[:, :-1]
target = wineq[:, -1]
target = wineq[:, -1].long()
target_onehot = torch.zeros(target.shape[0], 10)
target_onehot.scatter_(1, target.unsqueeze(1), 1.0)
assert torch.equal(target_onehot.argmax(1), target) and target_onehot.sum() == 200
target_unsqueezed = target.unsqueeze(1)
data_mean = torch.mean(data, dim=0)
data_var = torch.var(data, dim=0)
data_normalized = (data - data_mean) / torch.sqrt(data_var)
bad_indexes = target <= 3
assert bad_indexes.dtype == torch.bool
bad_data = data[bad_indexes]
mid_data = data[(target > 3) & (target < 7)]
good_data = data[target >= 7]
bad_mean = torch.mean(bad_data, dim=0)
mid_mean = torch.mean(mid_data, dim=0)
good_mean = torch.mean(good_data, dim=0)
for i, args in enumerate(zip(['fixed acidity'] * 11, bad_mean, mid_mean, good_mean)):
    line = '{:2} {:20} {:6.2f} {:6.2f} {:6.2f}'.format(i, *args)
assert len(line) > 20
total_sulfur_threshold = 5.0
total_sulfur_data = data[:, 6]
predicted_indexes = torch.lt(total_sulfur_data, total_sulfur_threshold)
actual_indexes = target > 5
n_matches = torch.sum(actual_indexes & predicted_indexes).item()
n_predicted = torch.sum(predicted_indexes).item()
n_actual = torch.sum(actual_indexes).item()
assert 0 <= n_matches <= min(n_predicted, n_actual) and isinstance(n_matches, int)

# 4.4 time series: bike sharing, hourly rows of 17 columns
hours = 24 * 10
bikes_numpy = np.zeros((hours, 17), dtype=np.float32)
bikes_numpy[:, 0] = np.arange(1, hours + 1)
bikes_numpy[:, 9] = rng.randint(1, 5, hours)             # weathersit 1..4
bikes_numpy[:, 10] = rng.uniform(0, 1, hours)            # temperature
bikes_numpy[:, -1] = rng.randint(0, 500, hours)          # count
bikes = torch.from_numpy(bikes_numpy)
assert bikes.stride() == (17, 1)
daily_bikes = bikes.view(-1, 24, bikes.shape[1])
assert daily_bikes.shape == (10, 24, 17) and daily_bikes.stride() == (408, 17, 1)
daily_bikes = daily_bikes.transpose(1, 2)
assert daily_bikes.shape == (10, 17, 24) and daily_bikes.stride() == (408, 1, 17)
first_day = bikes[:24].long()
weather_onehot = torch.zeros(first_day.shape[0], 4)
weather_onehot.scatter_(dim=1, index=first_day[:, 9].unsqueeze(1).long() - 1, value=1.0)
assert torch.equal(weather_onehot.argmax(1) + 1, first_day[:, 9])
with_weather = torch.cat((bikes[:24], weather_onehot), 1)
assert with_weather.shape == (24, 21)
daily_weather_onehot = torch.zeros(daily_bikes.shape[0], 4, daily_bikes.shape[2])
daily_weather_onehot.scatter_(1, daily_bikes[:, 9, :].long().unsqueeze(1) - 1, 1.0)
daily_bikes = torch.cat((daily_bikes, daily_weather_onehot), dim=1)
assert daily_bikes.shape == (10, 21, 24)
daily_bikes[:, 9, :] = (daily_bikes[:, 9, :] - 1.0) / 3.0
temp = daily_bikes[:, 10, :]
temp_min = torch.min(temp)
temp_max = torch.max(temp)
daily_bikes[:, 10, :] = ((daily_bikes[:, 10, :] - temp_min) / (temp_max - temp_min))
assert daily_bikes[:, 10, :].min() == 0 and daily_bikes[:, 10, :].max() == 1
daily_bikes[:, 10, :] = ((daily_bikes[:, 10, :] - torch.mean(temp)) / torch.std(temp))

# 4.5 text: one-hot characters and words
text = "Impossible, Mr. Bennet, impossible, when I am not acquainted with him"
letter_t = torch.zeros(len(text), 128)
for i, letter in enumerate(text.lower().strip()):
    letter_index = ord(letter) if ord(letter) < 128 else 0
    letter_t[i][letter_index] = 1
assert letter_t.shape == (len(text), 128) and letter_t.sum() == len(text)


def clean_words(input_str):
    punctuation = '.,;:"!?”“_-'
    word_list = input_str.lower().replace('\n', ' ').split()
    word_list = [word.strip(punctuation) for word in word_list]
    return word_list


words_in_line = clean_words(text)
word_list = sorted(set(clean_words(text)))
word2index_dict = {word: i for (i, word) in enumerate(word_list)}
word_t = torch.zeros(len(words_in_line), len(word2index_dict))
for i, word in enumerate(words_in_line):
    word_index = word2index_dict[word]
    word_t[i][word_index] = 1
assert word_t.shape == (len(words_in_line), len(word_list))
assert torch.equal(word_t.sum(0), torch.tensor([float(words_in_line.count(w)) for w in word_list]))
print(word_t[:2])
