"""text.py - the zoo's language models, written in torch at small sizes
(random weights): BERT- and ALBERT-style encoders, a GPT-2-style decoder
with its KV cache as inputs and outputs, LLaMA-style blocks (RMSNorm,
rotary embeddings, SwiGLU, grouped-query attention), a T5-style
encoder-decoder with relative position buckets, a BART-style
encoder-decoder, recurrent language models, a seq2seq with attention, a
mixture-of-experts block, a text CNN and a CLIP-style dual encoder.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from zoo_common import tokens, zoo_model

VOCAB = 1000


def lang(name, inputs, sizes, input_names, output_names, dyn, **kw):
    return zoo_model(name, "language", inputs=inputs, sizes=sizes,
                     input_names=input_names, output_names=output_names,
                     dynamic_axes=dyn, **kw)


SEQ = [dict(n=1, l=16), dict(n=3, l=24)]


def seq_dyn(inputs, outputs, out_seq=True):
    d = {i: {0: "batch", 1: "seq"} for i in inputs}
    for o in outputs:
        d[o] = {0: "batch", 1: "seq"} if out_seq else {0: "batch"}
    return d


def bert_inputs(s):
    n, l = s["n"], s["l"]
    mask = torch.ones(n, l, dtype=torch.int64)
    mask[1:, l - 4:] = 0  # padding in all but the first item
    types = torch.zeros(n, l, dtype=torch.int64)
    types[:, l // 2:] = 1
    return tokens(n, l, VOCAB), mask, types


def extended_mask(mask):
    """(N, L) 1/0 -> an additive (N, 1, 1, L) mask."""
    return (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0


class SelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.h = heads

    def forward(self, x, bias=None):
        b, t, d = x.shape
        h, dh = self.h, d // self.h
        q, k, v = self.qkv(x).view(b, t, 3, h, dh).permute(2, 0, 3, 1, 4)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)
        if bias is not None:
            w = w + bias
        y = torch.matmul(torch.softmax(w, -1), v)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class PostLNLayer(nn.Module):
    """BERT's encoder layer: attention, add & norm, GELU FFN, add & norm."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.attn = SelfAttention(d, heads)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(),
                                nn.Linear(ff, d))
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, bias):
        x = self.ln1(x + self.attn(x, bias))
        return self.ln2(x + self.ff(x))


class Bert(nn.Module):
    def __init__(self, d=128, heads=4, layers=2, ff=256, max_pos=64):
        super().__init__()
        self.word = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(max_pos, d)
        self.tok_type = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([PostLNLayer(d, heads, ff)
                                     for _ in range(layers)])
        self.pool = nn.Linear(d, d)

    def encode(self, ids, mask, types):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.ln(self.word(ids) + self.pos(pos) + self.tok_type(types))
        bias = extended_mask(mask)
        for layer in self.layers:
            x = layer(x, bias)
        return x

    def forward(self, ids, mask, types):
        x = self.encode(ids, mask, types)
        return x, torch.tanh(self.pool(x[:, 0]))


BERT_IN = ["input_ids", "attention_mask", "token_type_ids"]


@lang("bert", bert_inputs, SEQ, BERT_IN, ["last_hidden_state", "pooled"],
      {**seq_dyn(BERT_IN, ["last_hidden_state"]), "pooled": {0: "batch"}},
      ci=True, ci_variants=("13-static",))
def bert():
    return Bert()


class SentenceEncoder(Bert):
    """A sentence-embedding model: BERT, masked mean pooling, L2 norm."""

    def forward(self, ids, mask, types):
        x = self.encode(ids, mask, types)
        m = mask.unsqueeze(-1).to(x.dtype)
        e = (x * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return F.normalize(e, dim=-1)


@lang("sentence_encoder", bert_inputs, SEQ, BERT_IN, ["embedding"],
      seq_dyn(BERT_IN, ["embedding"], out_seq=False))
def sentence_encoder():
    return SentenceEncoder()


class Albert(nn.Module):
    """ALBERT: factorized embeddings (E=32 -> H=128), one encoder layer
    shared by all 4 layers, a masked-LM head tied to the embeddings."""

    def __init__(self, e=32, d=128, heads=4, layers=4, ff=256):
        super().__init__()
        self.word = nn.Embedding(VOCAB, e)
        self.pos = nn.Embedding(64, e)
        self.tok_type = nn.Embedding(2, e)
        self.ln = nn.LayerNorm(e)
        self.proj = nn.Linear(e, d)
        self.layer = PostLNLayer(d, heads, ff)
        self.n = layers
        self.mlm = nn.Sequential(nn.Linear(d, e), nn.GELU(), nn.LayerNorm(e))
        self.bias = nn.Parameter(torch.zeros(VOCAB))

    def forward(self, ids, mask, types):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.proj(self.ln(self.word(ids) + self.pos(pos) +
                              self.tok_type(types)))
        bias = extended_mask(mask)
        for _ in range(self.n):
            x = self.layer(x, bias)
        return torch.matmul(self.mlm(x), self.word.weight.t()) + self.bias


@lang("albert", bert_inputs, SEQ, BERT_IN, ["logits"],
      seq_dyn(BERT_IN, ["logits"]), atol=1e-3)
def albert():
    return Albert()


# ---- GPT-2 with a KV cache ----------------------------------------------------

class GPT2Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                 nn.Linear(4 * d, d))
        self.h = heads

    def forward(self, x, past_k, past_v, bias):
        b, t, d = x.shape
        h, dh = self.h, d // self.h
        q, k, v = self.c_attn(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, h, dh).transpose(1, 2)
        k = torch.cat([past_k, k.view(b, t, h, dh).transpose(1, 2)], 2)
        v = torch.cat([past_v, v.view(b, t, h, dh).transpose(1, 2)], 2)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh) + bias
        y = torch.matmul(torch.softmax(w, -1), v)
        x = x + self.c_proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x)), k, v


class GPT2(nn.Module):
    """GPT-2: learned positions offset by the cache length, a causal mask
    over past + new tokens; returns logits and the updated cache."""

    def __init__(self, d=128, heads=4, layers=2, ctx=64):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, d)
        self.wpe = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([GPT2Block(d, heads)
                                     for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids, *past):
        p = past[0].shape[2]
        t = ids.shape[1]
        pos = torch.arange(p, p + t).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        q = torch.arange(t).unsqueeze(1) + p
        k = torch.arange(p + t).unsqueeze(0)
        bias = torch.where(k > q, torch.tensor(-1e9), torch.tensor(0.0))
        present = []
        for i, blk in enumerate(self.blocks):
            x, pk, pv = blk(x, past[2 * i], past[2 * i + 1], bias)
            present += [pk, pv]
        return (torch.matmul(self.ln_f(x), self.wte.weight.t()),
                *present)


GPT_LAYERS, GPT_HEADS, GPT_DH = 2, 4, 32
GPT_PAST = ["past_%s_%d" % (kv, i) for i in range(GPT_LAYERS)
            for kv in ("key", "value")]
GPT_PRESENT = ["present_%s_%d" % (kv, i) for i in range(GPT_LAYERS)
               for kv in ("key", "value")]


def gpt2_inputs(s):
    n = s["n"]
    return (tokens(n, s["l"], VOCAB),) + tuple(
        torch.randn(n, GPT_HEADS, s["p"], GPT_DH) for _ in GPT_PAST)


@lang("gpt2_kv_cache", gpt2_inputs,
      [dict(n=1, l=6, p=4), dict(n=2, l=1, p=9)], ["input_ids"] + GPT_PAST,
      ["logits"] + GPT_PRESENT,
      {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"},
       **{k: {0: "batch", 2: "past"} for k in GPT_PAST},
       **{k: {0: "batch", 2: "total"} for k in GPT_PRESENT}},
      atol=1e-3, ci=True, ci_variants=("17-static",))
def gpt2_kv_cache():
    return GPT2(d=GPT_HEADS * GPT_DH, heads=GPT_HEADS, layers=GPT_LAYERS)


# ---- LLaMA ---------------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.w


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], -1)


class LlamaBlock(nn.Module):
    """RMSNorm, rotary position embeddings, grouped-query attention (4
    query heads sharing 2 key/value heads), SwiGLU feed-forward."""

    def __init__(self, d=128, heads=4, kv_heads=2, ff=344):
        super().__init__()
        self.h, self.kvh, self.dh = heads, kv_heads, d // heads
        self.norm1 = RMSNorm(d)
        self.wq = nn.Linear(d, heads * self.dh, bias=False)
        self.wk = nn.Linear(d, kv_heads * self.dh, bias=False)
        self.wv = nn.Linear(d, kv_heads * self.dh, bias=False)
        self.wo = nn.Linear(heads * self.dh, d, bias=False)
        self.norm2 = RMSNorm(d)
        self.w1 = nn.Linear(d, ff, bias=False)
        self.w3 = nn.Linear(d, ff, bias=False)
        self.w2 = nn.Linear(ff, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.dh, 2).float() / self.dh))
        self.register_buffer("inv_freq", inv)

    def forward(self, x):
        b, t, d = x.shape
        h, kvh, dh = self.h, self.kvh, self.dh
        pos = torch.arange(t, dtype=torch.float32)
        freqs = pos.unsqueeze(1) * self.inv_freq.unsqueeze(0)
        emb = torch.cat([freqs, freqs], -1)
        cos, sin = emb.cos(), emb.sin()
        y = self.norm1(x)
        q = self.wq(y).view(b, t, h, dh).transpose(1, 2)
        k = self.wk(y).view(b, t, kvh, dh).transpose(1, 2)
        v = self.wv(y).view(b, t, kvh, dh).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = h // kvh
        k = k.unsqueeze(2).expand(b, kvh, rep, t, dh).reshape(b, h, t, dh)
        v = v.unsqueeze(2).expand(b, kvh, rep, t, dh).reshape(b, h, t, dh)
        i = torch.arange(t)
        mask = torch.where(i.unsqueeze(0) > i.unsqueeze(1),
                           torch.tensor(float("-inf")), torch.tensor(0.0))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh) + mask
        a = torch.matmul(torch.softmax(w, -1), v)
        x = x + self.wo(a.transpose(1, 2).reshape(b, t, h * dh))
        y = self.norm2(x)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y))


@lang("llama_block", lambda s: (torch.randn(s["n"], s["l"], 128),), SEQ,
      ["hidden"], ["output"], seq_dyn(["hidden"], ["output"]), ci=True,
      ci_variants=("13-static",))
def llama_block():
    return LlamaBlock()


class LlamaTiny(nn.Module):
    def __init__(self, d=128, layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.blocks = nn.ModuleList([LlamaBlock(d) for _ in range(layers)])
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))


@lang("llama_tiny", lambda s: (tokens(s["n"], s["l"], VOCAB),), SEQ,
      ["input_ids"], ["logits"], seq_dyn(["input_ids"], ["logits"]),
      atol=1e-3)
def llama_tiny():
    return LlamaTiny()


# ---- T5 --------------------------------------------------------------------------

class T5LayerNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) +
                                        1e-6)


def t5_bucket(rel, bidirectional, buckets=32, max_distance=128):
    """T5's relative position buckets (exact near, logarithmic far)."""
    ret = torch.zeros_like(rel)
    if bidirectional:
        buckets //= 2
        ret = ret + (rel > 0).to(torch.int64) * buckets
        rel = torch.abs(rel)
    else:
        rel = -torch.clamp(rel, max=0)
    max_exact = buckets // 2
    is_small = rel < max_exact
    large = max_exact + (
        torch.log(rel.float().clamp(min=1) / max_exact) /
        math.log(max_distance / max_exact) * (buckets - max_exact)
    ).to(torch.int64)
    large = torch.clamp(large, max=buckets - 1)
    return ret + torch.where(is_small, rel, large)


class T5Attention(nn.Module):
    def __init__(self, d, heads, bias=False, bidirectional=True):
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.h = heads
        self.bidirectional = bidirectional
        self.rel = nn.Embedding(32, heads) if bias else None

    def position_bias(self, t, s):
        ctx = torch.arange(t).unsqueeze(1)
        mem = torch.arange(s).unsqueeze(0)
        buckets = t5_bucket(mem - ctx, self.bidirectional)
        return self.rel(buckets).permute(2, 0, 1).unsqueeze(0)

    def forward(self, x, kv=None, bias=None):
        kv = x if kv is None else kv
        b, t, d = x.shape
        s = kv.shape[1]
        h, dh = self.h, d // self.h
        q = self.q(x).view(b, t, h, dh).transpose(1, 2)
        k = self.k(kv).view(b, s, h, dh).transpose(1, 2)
        v = self.v(kv).view(b, s, h, dh).transpose(1, 2)
        w = torch.matmul(q, k.transpose(-1, -2))  # T5: no 1/sqrt(d)
        if bias is not None:
            w = w + bias
        y = torch.matmul(torch.softmax(w, -1), v)
        return self.o(y.transpose(1, 2).reshape(b, t, d))


class T5Layer(nn.Module):
    def __init__(self, d, heads, ff, decoder, first):
        super().__init__()
        self.ln1 = T5LayerNorm(d)
        self.attn = T5Attention(d, heads, bias=first,
                                bidirectional=not decoder)
        self.cross = T5Attention(d, heads) if decoder else None
        self.lnx = T5LayerNorm(d) if decoder else None
        self.ln2 = T5LayerNorm(d)
        self.wi = nn.Linear(d, ff, bias=False)
        self.wo = nn.Linear(ff, d, bias=False)


class T5Small(nn.Module):
    """T5: shared embedding, RMS layer norms, relative position bias
    computed by the first layer of each stack and shared by the others,
    causal decoder self-attention, cross-attention, ReLU FFN."""

    def __init__(self, d=64, heads=4, ff=128, layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.enc = nn.ModuleList([T5Layer(d, heads, ff, False, i == 0)
                                  for i in range(layers)])
        self.dec = nn.ModuleList([T5Layer(d, heads, ff, True, i == 0)
                                  for i in range(layers)])
        self.enc_ln = T5LayerNorm(d)
        self.dec_ln = T5LayerNorm(d)
        self.d = d

    def forward(self, ids, mask, dec_ids):
        x = self.emb(ids)
        t = ids.shape[1]
        bias = self.enc[0].attn.position_bias(t, t) + extended_mask(mask)
        for l in self.enc:
            x = x + l.attn(l.ln1(x), bias=bias)
            x = x + l.wo(F.relu(l.wi(l.ln2(x))))
        mem = self.enc_ln(x)
        y = self.emb(dec_ids)
        u = dec_ids.shape[1]
        i = torch.arange(u)
        causal = torch.where(i.unsqueeze(0) > i.unsqueeze(1),
                             torch.tensor(-1e9), torch.tensor(0.0))
        dbias = self.dec[0].attn.position_bias(u, u) + causal
        xbias = extended_mask(mask)
        for l in self.dec:
            y = y + l.attn(l.ln1(y), bias=dbias)
            y = y + l.cross(l.lnx(y), kv=mem, bias=xbias)
            y = y + l.wo(F.relu(l.wi(l.ln2(y))))
        y = self.dec_ln(y) * (self.d ** -0.5)
        return torch.matmul(y, self.emb.weight.t())


def enc_dec_inputs(s):
    n, l, u = s["n"], s["l"], s["u"]
    mask = torch.ones(n, l, dtype=torch.int64)
    mask[1:, l - 3:] = 0
    return tokens(n, l, VOCAB), mask, tokens(n, u, VOCAB)


ENC_DEC = [dict(n=1, l=12, u=5), dict(n=2, l=20, u=9)]
ENC_DEC_DYN = {"input_ids": {0: "batch", 1: "src"},
               "attention_mask": {0: "batch", 1: "src"},
               "decoder_input_ids": {0: "batch", 1: "tgt"},
               "logits": {0: "batch", 1: "tgt"}}


@lang("t5_small", enc_dec_inputs, ENC_DEC,
      ["input_ids", "attention_mask", "decoder_input_ids"], ["logits"],
      ENC_DEC_DYN, atol=1e-3, ci=True, ci_variants=("17-static",))
def t5_small():
    return T5Small()


class BartTiny(nn.Module):
    """BART: learned positions (offset 2), post-LN encoder and decoder
    layers (nn.TransformerEncoderLayer/DecoderLayer, GELU), a layer norm on
    the embeddings, tied output projection with a final bias."""

    def __init__(self, d=64, heads=4, ff=128, layers=2, ctx=64):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.enc_pos = nn.Embedding(ctx + 2, d)
        self.dec_pos = nn.Embedding(ctx + 2, d)
        self.enc_ln = nn.LayerNorm(d)
        self.dec_ln = nn.LayerNorm(d)
        self.enc = nn.ModuleList([nn.TransformerEncoderLayer(
            d, heads, ff, 0.0, "gelu", batch_first=True)
            for _ in range(layers)])
        self.dec = nn.ModuleList([nn.TransformerDecoderLayer(
            d, heads, ff, 0.0, "gelu", batch_first=True)
            for _ in range(layers)])
        self.bias = nn.Parameter(torch.zeros(VOCAB))

    def forward(self, ids, mask, dec_ids):
        pad = mask == 0
        x = self.enc_ln(self.emb(ids) +
                        self.enc_pos(torch.arange(ids.shape[1]) + 2))
        for l in self.enc:
            x = l(x, src_key_padding_mask=pad)
        u = dec_ids.shape[1]
        i = torch.arange(u)
        causal = torch.where(i.unsqueeze(0) > i.unsqueeze(1),
                             torch.tensor(float("-inf")), torch.tensor(0.0))
        y = self.dec_ln(self.emb(dec_ids) + self.dec_pos(i + 2))
        for l in self.dec:
            y = l(y, x, tgt_mask=causal, memory_key_padding_mask=pad)
        return torch.matmul(y, self.emb.weight.t()) + self.bias


@lang("bart_tiny", enc_dec_inputs, ENC_DEC,
      ["input_ids", "attention_mask", "decoder_input_ids"], ["logits"],
      ENC_DEC_DYN, atol=1e-3)
def bart_tiny():
    return BartTiny()


class TorchTransformer(nn.Module):
    """torch.nn.Transformer as a translation model (post-LN, ReLU)."""

    def __init__(self, d=64):
        super().__init__()
        self.src = nn.Embedding(VOCAB, d)
        self.tgt = nn.Embedding(VOCAB, d)
        self.t = nn.Transformer(d, 4, 2, 2, 128, dropout=0.0,
                                batch_first=True)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, src, tgt):
        u = tgt.shape[1]
        i = torch.arange(u)
        causal = torch.where(i.unsqueeze(0) > i.unsqueeze(1),
                             torch.tensor(float("-inf")), torch.tensor(0.0))
        return self.out(self.t(self.src(src), self.tgt(tgt),
                               tgt_mask=causal))


@lang("nn_transformer",
      lambda s: (tokens(s["n"], s["l"], VOCAB), tokens(s["n"], s["u"], VOCAB)),
      ENC_DEC, ["src", "tgt"], ["logits"],
      {"src": {0: "batch", 1: "src"}, "tgt": {0: "batch", 1: "tgt"},
       "logits": {0: "batch", 1: "tgt"}}, atol=1e-3)
def nn_transformer():
    return TorchTransformer()


# ---- recurrent ---------------------------------------------------------------------

class LSTMLM(nn.Module):
    """A word-level LSTM language model with its state in and out."""

    def __init__(self, d=64, hidden=128, layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.rnn = nn.LSTM(d, hidden, layers, batch_first=True)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, ids, h, c):
        y, (h, c) = self.rnn(self.emb(ids), (h, c))
        return self.out(y), h, c


@lang("lstm_lm",
      lambda s: (tokens(s["n"], s["l"], VOCAB), torch.randn(2, s["n"], 128),
                 torch.randn(2, s["n"], 128)), SEQ,
      ["input_ids", "h0", "c0"], ["logits", "h", "c"],
      {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"},
       "h0": {1: "batch"}, "c0": {1: "batch"}, "h": {1: "batch"},
       "c": {1: "batch"}}, ci=True, ci_variants=("13-dynamic",))
def lstm_lm():
    return LSTMLM()


class GRULM(nn.Module):
    """A character-level GRU language model (2 layers)."""

    def __init__(self, d=32, hidden=96):
        super().__init__()
        self.emb = nn.Embedding(128, d)
        self.rnn = nn.GRU(d, hidden, 2, batch_first=True)
        self.out = nn.Linear(hidden, 128)

    def forward(self, ids):
        return self.out(self.rnn(self.emb(ids))[0])


@lang("gru_lm", lambda s: (tokens(s["n"], s["l"], 128),), SEQ,
      ["input_ids"], ["logits"], seq_dyn(["input_ids"], ["logits"]))
def gru_lm():
    return GRULM()


class Seq2SeqAttention(nn.Module):
    """A bidirectional GRU encoder, a GRU decoder run over the (teacher-
    forced) target, Luong "general" attention over the encoder states for
    every decoder step, an attentional output layer."""

    def __init__(self, d=64, hidden=64):
        super().__init__()
        self.src = nn.Embedding(VOCAB, d)
        self.tgt = nn.Embedding(VOCAB, d)
        self.enc = nn.GRU(d, hidden, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * hidden, hidden)
        self.dec = nn.GRU(d, hidden, batch_first=True)
        self.w = nn.Linear(hidden, 2 * hidden, bias=False)
        self.comb = nn.Linear(3 * hidden, hidden)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, src, mask, tgt):
        enc, h = self.enc(self.src(src))
        h0 = torch.tanh(self.bridge(torch.cat([h[0], h[1]], -1))).unsqueeze(0)
        dec, _ = self.dec(self.tgt(tgt), h0)
        scores = torch.matmul(self.w(dec), enc.transpose(1, 2))
        scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9)
        ctx = torch.matmul(torch.softmax(scores, -1), enc)
        return self.out(torch.tanh(self.comb(torch.cat([dec, ctx], -1))))


@lang("seq2seq_attention", enc_dec_inputs, ENC_DEC,
      ["input_ids", "attention_mask", "decoder_input_ids"], ["logits"],
      ENC_DEC_DYN, ci=True, ci_variants=("17-static",))
def seq2seq_attention():
    return Seq2SeqAttention()


# ---- other ---------------------------------------------------------------------------

class TextCNN(nn.Module):
    """Kim's CNN sentence classifier: 3/4/5-wide Conv1d, max over time."""

    def __init__(self, d=64, ch=32, classes=4):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.convs = nn.ModuleList([nn.Conv1d(d, ch, k) for k in (3, 4, 5)])
        self.fc = nn.Linear(3 * ch, classes)

    def forward(self, ids):
        x = self.emb(ids).transpose(1, 2)
        feats = [F.relu(c(x)).max(dim=2)[0] for c in self.convs]
        return self.fc(torch.cat(feats, 1))


@lang("text_cnn", lambda s: (tokens(s["n"], s["l"], VOCAB),), SEQ,
      ["input_ids"], ["logits"], seq_dyn(["input_ids"], ["logits"],
                                         out_seq=False))
def text_cnn():
    return TextCNN()


class MoEBlock(nn.Module):
    """A top-2 mixture-of-experts FFN (Mixtral-style routing): router
    softmax, TopK, renormalized weights, experts gathered per token."""

    def __init__(self, d=64, experts=4, ff=128):
        super().__init__()
        self.router = nn.Linear(d, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, d, ff) / math.sqrt(d))
        self.w2 = nn.Parameter(torch.randn(experts, ff, d) / math.sqrt(ff))
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        y = self.norm(x)
        probs = torch.softmax(self.router(y), -1)
        top, idx = torch.topk(probs, 2, dim=-1)
        top = top / top.sum(-1, keepdim=True)
        h = F.gelu(torch.einsum("btd,edf->btef", y, self.w1))
        out = torch.einsum("btef,efd->bted", h, self.w2)   # (B, T, E, D)
        picked = torch.gather(
            out, 2, idx.unsqueeze(-1).expand(-1, -1, -1, out.shape[-1]))
        return x + (picked * top.unsqueeze(-1)).sum(2), idx


@lang("moe_block", lambda s: (torch.randn(s["n"], s["l"], 64),), SEQ,
      ["hidden"], ["output", "experts"],
      seq_dyn(["hidden"], ["output", "experts"]))
def moe_block():
    return MoEBlock()


class CLIPTiny(nn.Module):
    """CLIP: a ViT image tower and a causal text transformer pooled at the
    end-of-text token (argmax of the ids), projections, cosine logits."""

    def __init__(self, d=64, embed=32):
        super().__init__()
        import torchvision
        self.vision = torchvision.models.VisionTransformer(
            image_size=32, patch_size=8, num_layers=2, num_heads=4,
            hidden_dim=d, mlp_dim=128, num_classes=embed)
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(16, d) * 0.02)
        self.text = nn.ModuleList([PreLN(d, 4) for _ in range(2)])
        self.ln = nn.LayerNorm(d)
        self.proj = nn.Linear(d, embed, bias=False)
        self.scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, pixels, ids):
        img = F.normalize(self.vision(pixels), dim=-1)
        t = ids.shape[1]
        x = self.tok(ids) + self.pos[:t]
        i = torch.arange(t)
        causal = torch.where(i.unsqueeze(0) > i.unsqueeze(1),
                             torch.tensor(-1e9), torch.tensor(0.0))
        for b in self.text:
            x = b(x, causal)
        x = self.ln(x)
        eot = x[torch.arange(x.shape[0]), ids.argmax(-1)]
        txt = F.normalize(self.proj(eot), dim=-1)
        return self.scale.exp() * torch.matmul(img, txt.t())


class PreLN(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = SelfAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(),
                                 nn.Linear(4 * d, d))

    def forward(self, x, bias):
        x = x + self.attn(self.ln1(x), bias)
        return x + self.mlp(self.ln2(x))


@lang("clip_tiny",
      lambda s: (torch.randn(s["n"], 3, 32, 32),
                 tokens(s["m"], s["l"], VOCAB)),
      [dict(n=2, m=3, l=8), dict(n=4, m=2, l=12)], ["pixels", "input_ids"],
      ["logits_per_image"],
      {"pixels": {0: "images"}, "input_ids": {0: "texts", 1: "seq"},
       "logits_per_image": {0: "images", 1: "texts"}}, atol=1e-3)
def clip_tiny():
    return CLIPTiny()
