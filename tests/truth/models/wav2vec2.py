"""wav2vec 2.0 base CTC model (facebook/wav2vec2-base-960h) as the contrib recipe exports it.

The recipe loads the Hugging Face Wav2Vec2ForCTC and converts it with
torchaudio.models.wav2vec2.utils.import_huggingface_model, i.e. it exports torchaudio's
Wav2Vec2Model. torchaudio.models.wav2vec2_base(aux_num_out=32) is that architecture
(group-norm feature extractor: 7 Conv1d of 512 channels, kernels 10,3,3,3,3,2,2, strides
5,2,2,2,2,2,2, no conv bias, GroupNorm(512,512) after the first conv, GELU; feature projection
LayerNorm + Linear 768; convolutional position embedding Conv1d kernel 128 groups 16 with
weight norm; 12 post-LN transformer layers, 12 heads, FFN 3072; CTC head to 32 tokens).
Weights are random. Export: opset 11, input 'modelInput' [N,100000] with dynamic batch.
"""
import torch
import torchaudio

OPSET = 11
INPUT_NAMES = ["modelInput"]
OUTPUT_NAMES = ["modelOutput"]
DYNAMIC_AXES = {"modelInput": {0: "batch_size"}, "modelOutput": {0: "batch_size"}}


class _LogitsOnly(torch.nn.Module):
    """torchaudio's Wav2Vec2Model returns (logits, lengths); with lengths=None the second
    output is None, so the export has one output, as in the recipe."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, wave):
        return self.model(wave)[0]


def build(variant="upstream"):
    return _LogitsOnly(torchaudio.models.wav2vec2_base(aux_num_out=32)).eval()


def example_inputs():
    return (torch.randn(1, 100000),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True,
                      opset_version=OPSET, do_constant_folding=True,
                      input_names=INPUT_NAMES, output_names=OUTPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES)
