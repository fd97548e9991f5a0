"""Training entry point (DDP on CUDA)."""
import os
import torch as T
import torch.distributed as dist
from torch.cuda import amp
from apex import amp as apex_amp
from .model import Net, \
    Head

@T.cuda.amp.autocast()
async def step(model, batch, *, device=f"cuda:{os.environ['LOCAL_RANK']}"):
    # model.cuda() in a comment
    out = model.cuda()(batch.to(device, non_blocking=True))
    return out.float()

def main():
    dist.init_process_group(backend='nccl', init_method="env://")
    T.backends.cudnn.benchmark = True
    scaler = amp.GradScaler()
    d = T.device("cuda" if T.cuda.is_available() else "cpu")
    print(rb'\x', b"\x41", '''multi
line''', f"{d!r:>{10}}")
