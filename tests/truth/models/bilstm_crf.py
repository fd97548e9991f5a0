"""BiLSTM-CRF NER model (CLUEbenchmark/CLUENER2020 bilstm_crf_pytorch model.NERModel, commit 2e8fccd1)
as the built-in BiLSTM_CRF_PyTorch recipe exports it.

Operator structure (upstream forward, unchanged): Embedding(vocab, 128); SpatialDropout (Dropout2d on a
permuted view: identity in eval, the unsqueeze/permute/squeeze around it are traced as they are);
embs * input_mask.float().unsqueeze(2); nn.LSTM(128, 384, num_layers=2, bidirectional, batch_first,
dropout 0.1); nn.LayerNorm(768); Linear(768, 33). The CRF is not called in forward (upstream too).
Sizes as the recipe's model_cfg; the vocabulary (vocab.pkl, not in the recipe) is a stand-in of 3000.
Export: opset 12, inputs ids / mask int64 [bs, 50] with dynamic axis 0 'bs', output 'features'.
"""
import torch
from torch import nn
from torch.nn import LayerNorm

OPSET = 12
SEQ = 50
VOCAB = 3000
TAGS = 33


class SpatialDropout(nn.Dropout2d):
    def __init__(self, p=0.6):
        super().__init__(p=p)

    def forward(self, x):
        x = x.unsqueeze(2)
        x = x.permute(0, 3, 2, 1)
        x = super().forward(x)
        x = x.permute(0, 3, 2, 1)
        x = x.squeeze(2)
        return x


class NERModel(nn.Module):
    def __init__(self, vocab_size=VOCAB, embedding_size=128, hidden_size=384, n_tags=TAGS, drop_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_size)
        self.bilstm = nn.LSTM(input_size=embedding_size, hidden_size=hidden_size, batch_first=True,
                              num_layers=2, dropout=drop_p, bidirectional=True)
        self.dropout = SpatialDropout(drop_p)
        self.layer_norm = LayerNorm(hidden_size * 2)
        self.classifier = nn.Linear(hidden_size * 2, n_tags)

    def forward(self, inputs_ids, input_mask):
        embs = self.embedding(inputs_ids)
        embs = self.dropout(embs)
        embs = embs * input_mask.float().unsqueeze(2)
        seqence_output, _ = self.bilstm(embs)
        seqence_output = self.layer_norm(seqence_output)
        return self.classifier(seqence_output)


def build(variant="upstream"):
    return NERModel().eval()


def example_inputs(batch=1):
    ids = torch.randint(1, VOCAB, (batch, SEQ), dtype=torch.long)
    mask = torch.ones(batch, SEQ, dtype=torch.long)
    mask[:, 20:] = 0
    return (ids, mask)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["ids", "mask"],
                      output_names=["features"], export_params=True, keep_initializers_as_inputs=False,
                      opset_version=OPSET, verbose=False,
                      dynamic_axes={"ids": {0: "bs"}, "mask": {0: "bs"}, "features": {0: "bs"}})
