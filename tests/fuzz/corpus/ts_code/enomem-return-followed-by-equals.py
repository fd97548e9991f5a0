class MultiheadAttention(Module):
  __parameters__ = ["in_proj_weight", "in_proj_bias", ]
  __buffers__ = []
  in_proj_weight : Tensor
  in_proj_bias : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  out_proj : __torch__.torch.nn.modules.linear.NonDynamicallyQuantizableLinear
  def forward(self: __torch__.torch.nn.modules.activation.MultiheadAttention,
    argument_1: Tensor) -> Tensor:
    out_proj = self.out_proj
    bias = out_proj.bias
    out_proj0 = self.out_proj
    weight = out_proj0.weight
    in_proj_bias = self.in_proj_bias
    in_proj_weight = self.in_proj_weight
    input, _0 = torch._native_multi_head_attention(argument_1, argument_1, argument_1, 32, 2, in_proj_weight, in_proj_bias, weight, bias, None, False)
    return= input
class GELU(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.activation.GELU,
    argument_1: Tensor) -> Tensor:
    return torch.gelu(argument_2)
