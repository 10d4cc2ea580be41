"""A tiny llama-architecture GGUF model, written by llama.cpp's own `gguf` package, for the tests.

No PyPI package ships a small generative GGUF, so the tests make one (about 6 MB, well under a
second): a SentencePiece-style vocabulary built from the bundled sample's words (every prefix
of each word, so llama.cpp's tokenizer merges whole words), byte fallback, a chat template, and
one transformer block whose attention and feed-forward weights are zero. The residual stream is
then the current token's embedding, and the output matrix is chosen so that greedy decoding
follows a fixed chain: after any token outside the chain comes ANSWER's first piece, after each
piece the next, after the last the end-of-text token. llama.cpp really tokenizes the prompt,
runs the block and samples; the answer is known in advance, so tests can assert on it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "loaders" / "sample"
# the pieces the model answers with, in order (each at most once, or the chain would loop)
ANSWER = ["▁Old", "▁Maren", "▁made", "▁the", "▁silver", "▁lantern", "▁[D1].", "▁Also", "▁see", "▁[Z9]."]
ANSWER_TEXT = "".join(ANSWER).replace("▁", " ").strip()
CHAT_TEMPLATE = (
    "{% for message in messages %}<|{{ message['role'] }}|>\n{{ message['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
N_EMBD, N_HEAD, N_FF = 128, 4, 256
CHAIN, START = 20.0, 12.0  # logits: the chain's next piece, the answer's first piece after anything else


def vocabulary() -> list[str]:
    words: set[str] = set()
    for path in SAMPLE.rglob("*"):
        if path.is_file():
            words |= set(re.findall(r"[A-Za-z]+", path.read_text("utf-8", errors="ignore")))
    pieces = {"▁"} | {chr(c) for c in range(33, 127)}
    for word in words:
        pieces |= {"▁" + word[:i] for i in range(1, len(word) + 1)}
    pieces |= set(ANSWER)
    return ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + sorted(pieces)


def write(path: Path, seed: int = 7) -> Path:
    """Write the model to `path` and return it."""
    import gguf

    tokens = vocabulary()
    ids = {t: i for i, t in enumerate(tokens)}
    n_vocab = len(tokens)
    rng = np.random.default_rng(seed)
    # each token: a constant first coordinate, then a random unit direction
    directions = rng.standard_normal((n_vocab, N_EMBD - 1))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    embeddings = np.hstack([np.ones((n_vocab, 1)), directions]).astype(np.float32)
    # after RMS norm a token's hidden state is sqrt(N_EMBD / 2) * [1, direction]
    scale = 1.0 / np.sqrt(N_EMBD / 2)
    output = np.zeros((n_vocab, N_EMBD), dtype=np.float32)
    chain = [ids[p] for p in ANSWER] + [ids["</s>"]]
    for before, after in zip(chain, chain[1:], strict=False):
        output[after, 1:] = CHAIN * directions[before] * scale
    output[chain[0], 0] = START * scale

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("graphrag-tiny-test")
    writer.add_context_length(32768)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(1)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(n_vocab)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0, 0.0, 0.0] + [0.0] * 256 + [float(len(t)) for t in tokens[259:]])
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    writer.add_token_types(types + [gguf.TokenType.BYTE] * 256 + [gguf.TokenType.NORMAL] * (n_vocab - 259))
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_chat_template(CHAT_TEMPLATE)

    zeros = lambda *shape: np.zeros(shape, dtype=np.float32)
    ones = np.ones(N_EMBD, dtype=np.float32)
    writer.add_tensor("token_embd.weight", embeddings)
    writer.add_tensor("blk.0.attn_norm.weight", ones)
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        writer.add_tensor(f"blk.0.{name}.weight", zeros(N_EMBD, N_EMBD))
    writer.add_tensor("blk.0.ffn_norm.weight", ones)
    writer.add_tensor("blk.0.ffn_gate.weight", zeros(N_FF, N_EMBD))
    writer.add_tensor("blk.0.ffn_up.weight", zeros(N_FF, N_EMBD))
    writer.add_tensor("blk.0.ffn_down.weight", zeros(N_EMBD, N_FF))
    writer.add_tensor("output_norm.weight", ones)
    writer.add_tensor("output.weight", output)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
