"""A tiny llama-architecture GGUF model for llama-cpp-python's server in the tests: a bigram
table, not a language model. Every attention and feed-forward weight is zero, so the hidden
state is the current token's embedding; each token's embedding is its own axis (one-hot), so
the output matrix is a table of which token follows which. Every token is followed by
``▁Hello`` unless the chain below says otherwise, and the chain ends in ``</s>``: whatever the
prompt, the greedy and the sampled answers are "Hello, world! How are you?" (8 tokens: more
than the conform battery's ``max_tokens: 5`` cut, fewer than llama-cpp-python's default
completions limit of 16). One more token, ``▁la``, is followed by itself: a prompt that ends
in it (the legacy completions prompt ``la``) gets "la la la ..." until ``max_tokens``, an answer
as long as a test needs.

Run with the interpreter that has ``gguf`` and ``numpy`` (the llama venv): ``python
tiny_gguf.py OUT.gguf``. It takes well under a second and writes about 1.8 MB."""

from __future__ import annotations

import sys

import gguf
import numpy as np

CHAIN = ["▁Hello", ",", "▁world", "!", "▁How", "▁are", "▁you", "?"]
LOOP = "▁la"
PIECES = ["la"]  # what the tokenizer merges "▁" with into LOOP (each merge makes a known piece)
SPECIAL = ["<unk>", "<s>", "</s>"]
BYTES = [f"<0x{b:02X}>" for b in range(256)]
TEMPLATE = (
    "{% for message in messages %}{{ message['role'] }}: {{ message['content'] }}\n"
    "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"
)


def build(path: str) -> None:
    words = [*CHAIN, LOOP, *PIECES]
    tokens = SPECIAL + BYTES + words
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    types += [gguf.TokenType.BYTE] * 256 + [gguf.TokenType.NORMAL] * len(words)
    scores = [0.0] * (3 + 256) + [-float(i) for i in range(len(words))]
    vocab = len(tokens)
    width = vocab + (-vocab) % 8  # one axis per token, padded to the heads
    heads, ff = 4, 16
    index = {t: i for i, t in enumerate(tokens)}

    follows = np.zeros((vocab, width), dtype=np.float32)  # [next token, current token's axis]
    follows[index["▁Hello"], :vocab] = 1.0
    for here, after in zip(CHAIN, [*CHAIN[1:], "</s>"], strict=True):
        follows[index[after], index[here]] = 2.0
    follows[index[LOOP], index[LOOP]] = 2.0

    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("streamscope-tiny-bigram")
    writer.add_context_length(4096)
    writer.add_embedding_length(width)
    writer.add_block_count(1)
    writer.add_feed_forward_length(ff)
    writer.add_head_count(heads)
    writer.add_head_count_kv(heads)
    writer.add_rope_dimension_count(width // heads)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_chat_template(TEMPLATE)

    zeros = lambda *shape: np.zeros(shape, dtype=np.float32)  # noqa: E731
    ones = lambda *shape: np.ones(shape, dtype=np.float32)  # noqa: E731
    writer.add_tensor("token_embd.weight", np.eye(vocab, width, dtype=np.float32))
    writer.add_tensor("output_norm.weight", ones(width))
    writer.add_tensor("output.weight", follows)
    block = "blk.0."
    writer.add_tensor(block + "attn_norm.weight", ones(width))
    for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
        writer.add_tensor(block + name + ".weight", zeros(width, width))
    writer.add_tensor(block + "ffn_norm.weight", ones(width))
    writer.add_tensor(block + "ffn_gate.weight", zeros(ff, width))
    writer.add_tensor(block + "ffn_up.weight", zeros(ff, width))
    writer.add_tensor(block + "ffn_down.weight", zeros(width, ff))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    build(sys.argv[1])
