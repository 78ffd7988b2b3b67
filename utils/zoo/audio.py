"""audio.py - the zoo's speech and audio models: torchaudio's architectures
with tiny configurations (random weights), two mel-spectrogram front ends,
and a Whisper-style encoder-decoder, a voice-activity detector and a
keyword spotter written in torch.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchaudio
import torchaudio.models as tam

from zoo_common import zoo_model


def audio(name, inputs, sizes, input_names, output_names, dyn, **kw):
    return zoo_model(name, "audio", inputs=inputs, sizes=sizes,
                     input_names=input_names, output_names=output_names,
                     dynamic_axes=dyn, **kw)


def wave_inputs(s):
    return (torch.randn(s["n"], s["t"]) * 0.1,)


WAVE = [dict(n=1, t=4000), dict(n=2, t=6000)]
WAVE_DYN = {"waveform": {0: "batch", 1: "samples"},
            "logits": {0: "batch", 1: "frames"}}
SMALL_EXTRACTOR = [(64, 10, 5), (64, 3, 2), (64, 3, 2), (64, 3, 2),
                   (64, 3, 2), (64, 2, 2), (64, 2, 2)]


class FirstOutput(nn.Module):
    """Keeps the first output of a model returning (x, lengths)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, *args):
        return self.m(*args)[0]


# wav2vec 2.0 (base's layout: group-norm extractor, post-norm encoder) with
# a 7-layer 64-channel extractor, 2 encoder layers of width 96 and a CTC head.
@audio("wav2vec2", wave_inputs, WAVE, ["waveform"], ["logits"], WAVE_DYN,
       ci=True, ci_variants=("17-static",))
def wav2vec2():
    return FirstOutput(tam.wav2vec2_model(
        "group_norm", SMALL_EXTRACTOR, False, 96, 0.0, 32, 4, 2, 4, 0.0, 192,
        0.0, 0.0, False, 0.0, 32))


# HuBERT (large's layout: layer-norm extractor with bias, pre-norm encoder).
@audio("hubert", wave_inputs, WAVE, ["waveform"], ["logits"], WAVE_DYN)
def hubert():
    return FirstOutput(tam.wav2vec2_model(
        "layer_norm", SMALL_EXTRACTOR, True, 96, 0.0, 32, 4, 2, 4, 0.0, 192,
        0.0, 0.0, True, 0.0, 32))


def feature_inputs(dim):
    def make(s):
        x = torch.randn(s["n"], s["t"], dim)
        lengths = torch.full((s["n"],), s["t"], dtype=torch.int64)
        lengths[1:] -= 3  # the other items are padded
        return x, lengths
    return make


class ConformerTraceable(nn.Module):
    """torchaudio's Conformer, with the padding mask built in the graph:
    its own _lengths_to_padding_mask takes max(lengths).item(), which the
    tracer freezes into a constant (no dynamic time axis)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x, lengths):
        t = torch.arange(x.shape[1], device=x.device)
        mask = t.unsqueeze(0) >= lengths.unsqueeze(1)
        y = x.transpose(0, 1)
        for layer in self.m.conformer_layers:
            y = layer(y, mask)
        return y.transpose(0, 1)


FEAT = [dict(n=1, t=32), dict(n=2, t=48)]


@audio("conformer", feature_inputs(80), FEAT, ["features", "lengths"],
       ["output"], {"features": {0: "batch", 1: "time"},
                    "lengths": {0: "batch"},
                    "output": {0: "batch", 1: "time"}},
       ci=True, ci_variants=("13-static",))
def conformer():
    return ConformerTraceable(tam.Conformer(
        input_dim=80, num_heads=4, ffn_dim=128, num_layers=2,
        depthwise_conv_kernel_size=15))


def full_length_inputs(dim):
    def make(s):
        return (torch.randn(s["n"], s["t"], dim),
                torch.full((s["n"],), s["t"], dtype=torch.int64))
    return make


# Emformer (streaming transformer; segment 4, right context 1, memory 4).
# Its block attention masks come from Python loops over the input length:
# fixed time, dynamic batch. Without memory (max_memory_size=0) it
# concatenates an empty 1-D tensor with 3-D ones, which torch allows and the
# exported Concat does not: memory 4.
@audio("emformer", full_length_inputs(64),
       [dict(n=1, t=17), dict(n=2, t=17)], ["features", "lengths"],
       ["output"], {"features": {0: "batch"}, "lengths": {0: "batch"},
                    "output": {0: "batch"}})
def emformer():
    return FirstOutput(tam.Emformer(
        input_dim=64, num_heads=4, ffn_dim=128, num_layers=2,
        segment_length=4, right_context_length=1, left_context_length=8,
        max_memory_size=4))


# Conv-TasNet source separation (2 sources). Its input is padded to a
# whole number of encoder strides with Python ints: the sizes are
# multiples of the stride (8), for which no padding is traced.
@audio("conv_tasnet", lambda s: (torch.randn(s["n"], 1, s["t"]) * 0.1,),
       [dict(n=1, t=800), dict(n=2, t=1200)], ["mixture"], ["sources"],
       {"mixture": {0: "batch", 2: "samples"},
        "sources": {0: "batch", 2: "samples"}},
       ci=True, ci_variants=("17-static",))
def conv_tasnet():
    return tam.ConvTasNet(num_sources=2, enc_kernel_size=16, enc_num_feats=64,
                          msk_kernel_size=3, msk_num_feats=32,
                          msk_num_hidden_feats=64, msk_num_layers=3,
                          msk_num_stacks=2)


# Wav2Letter on 13 MFCCs: its layer widths (250, 2000) are fixed, 94 MB.
@audio("wav2letter", lambda s: (torch.randn(s["n"], 13, s["t"]),),
       [dict(n=1, t=100), dict(n=2, t=150)], ["mfcc"], ["logits"],
       {"mfcc": {0: "batch", 2: "time"}, "logits": {0: "batch", 2: "time"}})
def wav2letter():
    return tam.Wav2Letter(num_classes=40, input_type="mfcc", num_features=13)


@audio("deepspeech", lambda s: (torch.randn(s["n"], 1, s["t"], 40),),
       [dict(n=1, t=50), dict(n=2, t=70)], ["features"], ["logits"],
       {"features": {0: "batch", 2: "time"},
        "logits": {0: "batch", 1: "time"}}, ci=True,
       ci_variants=("13-static",))
def deepspeech():
    return tam.DeepSpeech(n_feature=40, n_hidden=128, n_class=29)


def wavernn_inputs(s):
    hop, k = 25, 5
    return (torch.rand(s["n"], 1, (s["t"] - k + 1) * hop) * 2 - 1,
            torch.randn(s["n"], 1, 20, s["t"]))


class Stretch2dPositive(nn.Module):
    """torchaudio's Stretch2d (repeat_interleave over the last two dims) as
    a nearest-neighbour resize, which it equals for integer scales: torch
    1.13 exports repeat_interleave over dim -1/-2 as an Unsqueeze on an axis
    out of range, and over a dynamic dim as a Split that ORT rejects."""

    def __init__(self, time_scale, freq_scale):
        super().__init__()
        self.time_scale, self.freq_scale = time_scale, freq_scale

    def forward(self, x):
        return F.interpolate(x, scale_factor=(float(self.freq_scale),
                                              float(self.time_scale)),
                             mode="nearest")


def positive_stretch(module):
    from torchaudio.models.wavernn import Stretch2d
    for name, child in module.named_children():
        if isinstance(child, Stretch2d):
            setattr(module, name, Stretch2dPositive(child.time_scale,
                                                    child.freq_scale))
        else:
            positive_stretch(child)
    return module


@audio("wavernn", wavernn_inputs, [dict(n=1, t=10), dict(n=2, t=14)],
       ["waveform", "specgram"], ["logits"],
       {"waveform": {0: "batch", 2: "samples"},
        "specgram": {0: "batch", 3: "frames"},
        "logits": {0: "batch", 2: "samples"}})
def wavernn():
    return positive_stretch(tam.WaveRNN(
        upsample_scales=[5, 5], n_classes=64, hop_length=25, n_res_block=2,
        n_rnn=64, n_fc=64, kernel_size=5, n_freq=20, n_hidden=32,
        n_output=32))


def rnnt_inputs(s):
    n, t, u = s["n"], s["t"], s["u"]
    return (torch.randn(n, t, 40), torch.full((n,), t, dtype=torch.int32),
            torch.randint(0, 32, (n, u), dtype=torch.int32),
            torch.full((n,), u, dtype=torch.int32))


# Emformer RNN-T (transcriber, LSTM predictor, joiner), tiny. Fixed
# lengths (the Emformer masks), dynamic batch, memory 4 (see emformer).
@audio("emformer_rnnt", rnnt_inputs,
       [dict(n=1, t=20, u=5), dict(n=2, t=20, u=5)],
       ["sources", "source_lengths", "targets", "target_lengths"],
       ["logits", "out_lengths", "out_target_lengths"],
       {"sources": {0: "batch"}, "source_lengths": {0: "batch"},
        "targets": {0: "batch"}, "target_lengths": {0: "batch"},
        "logits": {0: "batch"}, "out_lengths": {0: "batch"},
        "out_target_lengths": {0: "batch"}}, atol=1e-3)
def emformer_rnnt():
    m = tam.emformer_rnnt_model(
        input_dim=40, encoding_dim=64, num_symbols=32, segment_length=4,
        right_context_length=2, time_reduction_input_dim=64,
        time_reduction_stride=2, transformer_num_heads=4,
        transformer_ffn_dim=128, transformer_num_layers=2,
        transformer_dropout=0.0, transformer_activation="gelu",
        transformer_left_context_length=8, transformer_max_memory_size=4,
        transformer_weight_init_scale_strategy="depthwise",
        transformer_tanh_on_mem=True, symbol_embedding_dim=32,
        num_lstm_layers=2, lstm_layer_norm=True, lstm_layer_norm_epsilon=1e-5,
        lstm_dropout=0.0)
    return RNNTOutputs(m)


class RNNTOutputs(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, sources, source_lengths, targets, target_lengths):
        out, lengths, tlengths, _ = self.m(sources, source_lengths, targets,
                                           target_lengths)
        return out, lengths, tlengths


# ---- front ends ---------------------------------------------------------------

class FramedMel(nn.Module):
    """A log-mel front end around torchaudio's MelScale and AmplitudeToDB.
    torch 1.13 exports neither torch.stft (torchaudio's Spectrogram) nor
    torch.fft, so the power spectrum is computed as a user would for
    export: reflect padding, framing by a Gather, a windowed DFT as a
    MatMul; then torchaudio.transforms.MelScale and AmplitudeToDB."""

    def __init__(self, n_fft=400, hop=160, n_mels=40, sr=16000):
        super().__init__()
        bins = n_fft // 2 + 1
        n = torch.arange(n_fft, dtype=torch.float64)
        k = torch.arange(bins, dtype=torch.float64).unsqueeze(0)
        w = torch.hann_window(n_fft, periodic=True,
                              dtype=torch.float64).unsqueeze(1)
        ang = 2 * math.pi * n.unsqueeze(1) * k / n_fft
        self.register_buffer("cos", (torch.cos(ang) * w).float())
        self.register_buffer("sin", (-torch.sin(ang) * w).float())
        self.mel = torchaudio.transforms.MelScale(n_mels, sr, n_stft=bins)
        self.db = torchaudio.transforms.AmplitudeToDB("power", top_db=80.0)
        self.n_fft, self.hop = n_fft, hop

    def forward(self, wave):
        p = self.n_fft // 2
        x = F.pad(wave.unsqueeze(1), (p, p), mode="reflect")[:, 0]
        t = (x.shape[1] - self.n_fft) // self.hop + 1
        idx = torch.arange(t).unsqueeze(1) * self.hop + \
            torch.arange(self.n_fft).unsqueeze(0)
        frames = x[:, idx]                               # (N, T, n_fft)
        re = torch.matmul(frames, self.cos)
        im = torch.matmul(frames, self.sin)
        power = (re * re + im * im).transpose(1, 2)      # (N, bins, T)
        return self.db(self.mel(power))


@audio("melspec_torchaudio", wave_inputs,
       [dict(n=1, t=4000), dict(n=2, t=6400)], ["waveform"], ["logmel"],
       {"waveform": {0: "batch", 1: "samples"},
        "logmel": {0: "batch", 2: "frames"}}, atol=1e-3, ci=True,
       ci_variants=("17-static",),
       note="torch.stft is not exportable in torch 1.13: framed DFT + "
       "torchaudio MelScale/AmplitudeToDB")
def melspec_torchaudio():
    return FramedMel()


class ConvMel(nn.Module):
    """An STFT as a strided Conv1d with a Hann-windowed DFT basis, then
    power, a mel filterbank (MatMul) and log."""

    def __init__(self, n_fft=400, hop=160, n_mels=40, sr=16000):
        super().__init__()
        bins = n_fft // 2 + 1
        n = torch.arange(n_fft, dtype=torch.float64)
        k = torch.arange(bins, dtype=torch.float64).unsqueeze(1)
        window = torch.hann_window(n_fft, periodic=True, dtype=torch.float64)
        ang = 2 * math.pi * k * n / n_fft
        basis = torch.cat([torch.cos(ang) * window, -torch.sin(ang) * window])
        self.register_buffer("basis", basis.float().unsqueeze(1))
        fb = torchaudio.functional.melscale_fbanks(bins, 0.0, sr / 2, n_mels,
                                                   sr)
        self.register_buffer("fb", fb)
        self.hop, self.bins, self.pad = hop, bins, n_fft // 2

    def forward(self, wave):
        x = F.pad(wave.unsqueeze(1), (self.pad, self.pad), mode="reflect")
        spec = F.conv1d(x, self.basis, stride=self.hop)
        re, im = spec[:, :self.bins], spec[:, self.bins:]
        power = (re * re + im * im).transpose(1, 2)
        return torch.log(torch.matmul(power, self.fb) + 1e-6).transpose(1, 2)


@audio("melspec_conv1d", wave_inputs,
       [dict(n=1, t=4000), dict(n=2, t=6400)], ["waveform"], ["logmel"],
       {"waveform": {0: "batch", 1: "samples"},
        "logmel": {0: "batch", 2: "frames"}}, atol=1e-3, ci=True,
       ci_variants=("13-dynamic",))
def melspec_conv1d():
    return ConvMel()


# ---- written in torch -----------------------------------------------------------

class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.h = heads

    def forward(self, x, kv=None, mask=None):
        kv = x if kv is None else kv
        b, t, d = x.shape
        s = kv.shape[1]
        h, dh = self.h, d // self.h
        q = self.q(x).view(b, t, h, dh).transpose(1, 2)
        k = self.k(kv).view(b, s, h, dh).transpose(1, 2)
        v = self.v(kv).view(b, s, h, dh).transpose(1, 2)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(dh)
        if mask is not None:
            w = w + mask
        y = torch.matmul(torch.softmax(w, -1), v)
        return self.o(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads, cross=False):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.cross = Attention(d, heads) if cross else None
        self.lnx = nn.LayerNorm(d) if cross else None
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                 nn.Linear(4 * d, d))

    def forward(self, x, mem=None, mask=None):
        x = x + self.attn(self.ln1(x), mask=mask)
        if self.cross is not None:
            x = x + self.cross(self.lnx(x), kv=mem)
        return x + self.mlp(self.ln2(x))


def sinusoids(length, channels):
    inc = math.log(10000) / (channels // 2 - 1)
    inv = torch.exp(-inc * torch.arange(channels // 2))
    t = torch.arange(length)[:, None] * inv[None, :]
    return torch.cat([torch.sin(t), torch.cos(t)], dim=1)


def causal_mask(length):
    i = torch.arange(length)
    return torch.where(i.unsqueeze(0) > i.unsqueeze(1),
                       torch.tensor(-1e9), torch.tensor(0.0))


class WhisperTiny(nn.Module):
    """Whisper's layout at toy size: two Conv1d (the second of stride 2)
    and sinusoidal positions, a pre-norm transformer encoder; a decoder
    with learned positions, causal self-attention and cross-attention, and
    logits tied to the token embedding."""

    def __init__(self, n_mels=40, d=64, heads=4, layers=2, vocab=100,
                 ctx=32, src=200):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, d, 3, padding=1)
        self.conv2 = nn.Conv1d(d, d, 3, stride=2, padding=1)
        self.register_buffer("enc_pos", sinusoids(src, d))
        self.enc = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.enc_ln = nn.LayerNorm(d)
        self.tok = nn.Embedding(vocab, d)
        self.dec_pos = nn.Parameter(torch.randn(ctx, d) * 0.02)
        self.dec = nn.ModuleList([Block(d, heads, cross=True)
                                  for _ in range(layers)])
        self.dec_ln = nn.LayerNorm(d)

    def forward(self, mel, tokens):
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).transpose(1, 2)
        x = x + self.enc_pos[:x.shape[1]]
        for b in self.enc:
            x = b(x)
        mem = self.enc_ln(x)
        y = self.tok(tokens) + self.dec_pos[:tokens.shape[1]]
        mask = causal_mask(tokens.shape[1])
        for b in self.dec:
            y = b(y, mem, mask)
        return torch.matmul(self.dec_ln(y), self.tok.weight.t())


@audio("whisper_tiny",
       lambda s: (torch.randn(s["n"], 40, s["t"]),
                  torch.randint(0, 100, (s["n"], s["l"]))),
       [dict(n=1, t=100, l=8), dict(n=2, t=160, l=12)], ["mel", "tokens"],
       ["logits"], {"mel": {0: "batch", 2: "frames"},
                    "tokens": {0: "batch", 1: "tokens"},
                    "logits": {0: "batch", 1: "tokens"}}, ci=True,
       ci_variants=("17-static",))
def whisper_tiny():
    return WhisperTiny()


class VAD(nn.Module):
    """A Silero-style voice-activity detector: a Conv1d front end over a
    chunk of samples, an LSTM whose state is passed in and out, a sigmoid
    speech probability."""

    def __init__(self, hidden=64):
        super().__init__()
        self.front = nn.Sequential(
            nn.Conv1d(1, 16, 16, stride=8), nn.ReLU(),
            nn.Conv1d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv1d(32, 32, 3, stride=2, padding=1), nn.ReLU())
        self.lstm = nn.LSTM(32, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, chunk, h, c):
        x = self.front(chunk.unsqueeze(1)).transpose(1, 2)
        y, (h, c) = self.lstm(x, (h, c))
        return torch.sigmoid(self.out(y[:, -1])), h, c


def vad_inputs(s):
    return (torch.randn(s["n"], s["t"]) * 0.1, torch.randn(1, s["n"], 64),
            torch.randn(1, s["n"], 64))


@audio("vad_lstm", vad_inputs, [dict(n=1, t=512), dict(n=3, t=1024)],
       ["chunk", "h", "c"], ["prob", "h_out", "c_out"],
       {"chunk": {0: "batch", 1: "samples"}, "h": {1: "batch"},
        "c": {1: "batch"}, "prob": {0: "batch"}, "h_out": {1: "batch"},
        "c_out": {1: "batch"}}, ci=True, ci_variants=("13-dynamic",))
def vad_lstm():
    return VAD()


class KWS(nn.Module):
    """A DS-CNN keyword spotter on MFCC frames (N, 1, frames, 10)."""

    def __init__(self, w=64, classes=12):
        super().__init__()
        layers = [nn.Conv2d(1, w, (10, 4), (2, 2), (5, 1)),
                  nn.BatchNorm2d(w), nn.ReLU()]
        for _ in range(3):
            layers += [nn.Conv2d(w, w, 3, 1, 1, groups=w), nn.BatchNorm2d(w),
                       nn.ReLU(), nn.Conv2d(w, w, 1), nn.BatchNorm2d(w),
                       nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(w, classes)

    def forward(self, x):
        return self.fc(self.body(x).mean((2, 3)))


@audio("kws_dscnn", lambda s: (torch.randn(s["n"], 1, s["t"], 10),),
       [dict(n=1, t=49), dict(n=4, t=49)], ["mfcc"], ["logits"],
       {"mfcc": {0: "batch", 2: "frames"}, "logits": {0: "batch"}})
def kws_dscnn():
    return KWS()


class Tacotron2Encoder(nn.Module):
    """Tacotron 2's text encoder (symbol embedding, 3 Conv1d+BatchNorm,
    a bidirectional LSTM). torchaudio's encoder packs the padded batch
    (pack_padded_sequence), which the exporter cannot follow with dynamic
    lengths; like an export for unpadded input, this runs the LSTM over the
    whole sequence."""

    def __init__(self):
        super().__init__()
        m = tam.Tacotron2(n_symbol=40, symbol_embedding_dim=64,
                          encoder_embedding_dim=64, encoder_n_convolution=3,
                          encoder_kernel_size=5, decoder_rnn_dim=64,
                          attention_rnn_dim=64, prenet_dim=32,
                          postnet_embedding_dim=32)
        self.embedding = m.embedding
        self.encoder = m.encoder

    def forward(self, ids):
        x = self.embedding(ids).transpose(1, 2)
        for conv in self.encoder.convolutions:
            x = F.relu(conv(x))
        return self.encoder.lstm(x.transpose(1, 2))[0]


@audio("tacotron2_encoder",
       lambda s: (torch.randint(0, 40, (s["n"], s["l"])),),
       [dict(n=1, l=20), dict(n=2, l=33)], ["symbols"], ["encoding"],
       {"symbols": {0: "batch", 1: "length"},
        "encoding": {0: "batch", 1: "length"}})
def tacotron2_encoder():
    return Tacotron2Encoder()
