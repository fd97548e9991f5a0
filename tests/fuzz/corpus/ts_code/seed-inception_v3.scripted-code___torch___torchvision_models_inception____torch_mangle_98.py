class BasicConv2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_97.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.___torch_mangle_87.BatchNorm2d
  def forward(self: __torch__.torchvision.models.inception.___torch_mangle_98.BasicConv2d,
    x: Tensor) -> Tensor:
    conv = self.conv
    x0 = (conv).forward(x, )
    bn = self.bn
    x1 = (bn).forward(x0, )
    _0 = __torch__.torch.nn.functional.relu(x1, True, )
    return _0
