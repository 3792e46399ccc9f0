"""Builds two tiny randomly initialised models with the paper models' interfaces, offline, for the
export test (tests/ml/paper_install.rs): a RoBERTa 3-way NLI classifier with a byte-level BPE
tokenizer (the MI judge's shape) and a BERT one-output regression with a WordPiece tokenizer
(BLEURT-base-128's shape), saved as Hugging Face model directories; and PyTorch's own outputs on
fixed pairs, for the Rust side to equal.

Usage: python make_tiny_paper_models.py OUT [--paper-shaped]
       (writes OUT/nli, OUT/bleurt, OUT/reference.json; --paper-shaped: random weights in the
       paper models' real sizes, RoBERTa-large and BERT-base, for scripts/bench-scoring.sh)
"""
import json
import os
import sys

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import (BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast,
                          RobertaConfig, RobertaForSequenceClassification)

out = sys.argv[1]
paper_shaped = "--paper-shaped" in sys.argv[2:]
# (hidden, layers, heads, intermediate, positions): tiny, or RoBERTa-large / BERT-base.
NLI_SHAPE = (1024, 24, 16, 4096, 514) if paper_shaped else (32, 2, 2, 64, 130)
BLEURT_SHAPE = (768, 12, 12, 3072, 512) if paper_shaped else (32, 2, 2, 64, 128)
CORPUS = [
    "A man is playing a guitar on the stage.", "On the stage, a man plays the guitar.",
    "The committee approved the budget on Tuesday.", "The weather is lovely today.",
    "It is raining heavily today.", "Prices have doubled since last year.",
    "The children are playing in the garden.", "Two years later, the insurance coverage would begin.",
    "Researchers found no link between the drug and the symptoms.", "The river flooded the village.",
] * 20
PAIRS = [
    ["A dog runs across the park.", "Across the park runs a dog."],
    ["The shop closes at six.", "The shop stays open all night."],
    ["She wrote three books about the war.", "Three books about the war were written by her."],
    ["Nobody came to the party.", "Everyone came to the party!"],
    ["The price of bread rose by 10% in 2023.", "In 2023, bread became 10 percent more expensive."],
]
torch.manual_seed(7)

# RoBERTa-style: byte-level BPE, <s> A </s></s> B </s>, no token types.
bpe = Tokenizer(models.BPE())
bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
bpe.decoder = decoders.ByteLevel()
bpe.train_from_iterator(CORPUS, trainers.BpeTrainer(
    vocab_size=400, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
    initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
bpe.post_processor = processors.RobertaProcessing(("</s>", bpe.token_to_id("</s>")),
                                                  ("<s>", bpe.token_to_id("<s>")))
nli_tok = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                                  cls_token="<s>", pad_token="<pad>", unk_token="<unk>", mask_token="<mask>")
nli_tok.model_input_names = ["input_ids", "attention_mask"]
h, l, a, i, p = NLI_SHAPE
nli = RobertaForSequenceClassification(RobertaConfig(
    vocab_size=50265 if paper_shaped else len(nli_tok), hidden_size=h, num_hidden_layers=l,
    num_attention_heads=a, intermediate_size=i, max_position_embeddings=p, type_vocab_size=1, pad_token_id=1,
    bos_token_id=0, eos_token_id=2, initializer_range=0.02 if paper_shaped else 0.3, num_labels=3,
    id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
    label2id={"entailment": 0, "neutral": 1, "contradiction": 2})).eval()

# BERT-style: WordPiece, [CLS] A [SEP] B [SEP] with token types 0 / 1, one output.
wp = Tokenizer(models.WordPiece(unk_token="[UNK]"))
wp.normalizer = normalizers.BertNormalizer(lowercase=True)
wp.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
wp.decoder = decoders.WordPiece()
wp.train_from_iterator(CORPUS, trainers.WordPieceTrainer(
    vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
cls, sep = wp.token_to_id("[CLS]"), wp.token_to_id("[SEP]")
wp.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                  special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
# Token types named as an input, as BERT's own tokenizer does (a generic fast tokenizer leaves
# them out, and the export would then make a graph without them).
bleurt_tok = PreTrainedTokenizerFast(tokenizer_object=wp, unk_token="[UNK]", pad_token="[PAD]",
                                     cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
                                     model_input_names=["input_ids", "token_type_ids", "attention_mask"])
h, l, a, i, p = BLEURT_SHAPE
bleurt = BertForSequenceClassification(BertConfig(
    vocab_size=30522 if paper_shaped else len(bleurt_tok), hidden_size=h, num_hidden_layers=l,
    num_attention_heads=a, intermediate_size=i, max_position_embeddings=p,
    initializer_range=0.02 if paper_shaped else 0.3, num_labels=1)).eval()

reference = {"pairs": PAIRS, "nli": [], "bleurt": []}
with torch.no_grad():
    for a, b in PAIRS:
        enc = nli_tok([a], [b], return_tensors="pt")
        reference["nli"].append(nli(**enc).logits[0].tolist())
        enc = bleurt_tok([a], [b], return_tensors="pt")
        reference["bleurt"].append(bleurt(**enc).logits[0, 0].item())

for name, model, tok in (("nli", nli, nli_tok), ("bleurt", bleurt, bleurt_tok)):
    model.save_pretrained(os.path.join(out, name))
    tok.save_pretrained(os.path.join(out, name))
with open(os.path.join(out, "reference.json"), "w") as f:
    json.dump(reference, f, indent=1)
print("tiny models in", out)
