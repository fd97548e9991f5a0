"""Compact stand-in for detectron2's GeneralizedRCNN Faster R-CNN with a ResNet-FPN backbone
(facebookresearch/detectron2 be792b9), the upstream of ModelZoo-PyTorch
built-in/cv/detection/Faster_Mask_RCNN_for_PyTorch (config faster_rcnn_R_101_FPN_3x).

Written from the Faster R-CNN / FPN papers and the upstream operator inventory, not copied.
The forward pass is detectron2's inference path in the upstream (CUDA) form the Ascend
recipe later rewrote:
  * preprocess: (x - mean) / std per image, batched by new_full + slice copy_ (ImageList)
  * backbone: FrozenBatchNorm (F.batch_norm, training=False), relu_, max pool, bottlenecks
  * FPN: 1x1 laterals, nearest x2 upsampling (scale_factor), add, 3x3 outputs, 1x1/stride-2
    max pool for P6
  * RPN: shared 3x3 conv, objectness / delta 1x1 convs, permute + flatten / view
  * anchors: arange + meshgrid + stack + view/add/reshape
  * box decoding (Box2BoxTransform.apply_deltas): slices, clamp, exp, zeros_like + slice writes
  * find_top_rpn_proposals: per-level sort (descending) + indexing, int64 level ids, cat,
    isfinite check, clip (clamp_), non-empty filter with boolean indexing, batched_nms,
    keep slicing
  * ROIPooler: boxes to (batch_idx, x1, y1, x2, y2) with full + cat, level assignment
    (sqrt, log2, floor, clamp, int64), per-level nonzero + index + torchvision roi_align
    (aligned=True, sampling_ratio 0) written back with index_put_
  * box head: flatten, two fc + relu_; predictor: class linear + softmax, box linear + decode
  * fast_rcnn_inference: isfinite, clip, score threshold mask, nonzero, boolean indexing,
    batched_nms, top-k slicing; detector_postprocess: rescale, clip, non-empty filter
One bottleneck per ResNet stage, 16-channel FPN, 4 classes, 50 proposals per image.
"""
import math
from typing import List, Tuple

import torch
from torch import nn
import torch.nn.functional as F
from torchvision.ops import batched_nms, roi_align


class FrozenBN(nn.Module):
    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(n))
        self.register_buffer("bias", torch.zeros(n))
        self.register_buffer("running_mean", torch.zeros(n))
        self.register_buffer("running_var", torch.ones(n) - eps)

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            training=False, eps=self.eps)


class ConvBN(nn.Module):
    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride, k // 2, bias=False)
        self.norm = FrozenBN(cout)

    def forward(self, x):
        return self.norm(self.conv(x))


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, cout, stride):
        super().__init__()
        self.shortcut = ConvBN(cin, cout, 1, stride)
        self.c1, self.c2, self.c3 = ConvBN(cin, mid, 1), ConvBN(mid, mid, 3, stride), ConvBN(mid, cout, 1)

    def forward(self, x):
        out = F.relu_(self.c1(x))
        out = F.relu_(self.c2(out))
        out = self.c3(out)
        out += self.shortcut(x)
        return F.relu_(out)


def decode(deltas, boxes, weights: Tuple[float, float, float, float], clamp: float):
    boxes = boxes.to(deltas.dtype)
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    cx = boxes[:, 0] + 0.5 * w
    cy = boxes[:, 1] + 0.5 * h
    dx = deltas[:, 0::4] / weights[0]
    dy = deltas[:, 1::4] / weights[1]
    dw = torch.clamp(deltas[:, 2::4] / weights[2], max=clamp)
    dh = torch.clamp(deltas[:, 3::4] / weights[3], max=clamp)
    pcx = dx * w[:, None] + cx[:, None]
    pcy = dy * h[:, None] + cy[:, None]
    pw = torch.exp(dw) * w[:, None]
    ph = torch.exp(dh) * h[:, None]
    out = torch.zeros_like(deltas)
    out[:, 0::4] = pcx - 0.5 * pw
    out[:, 1::4] = pcy - 0.5 * ph
    out[:, 2::4] = pcx + 0.5 * pw
    out[:, 3::4] = pcy + 0.5 * ph
    return out


def clip_(boxes, h: int, w: int):
    boxes[:, 0].clamp_(min=0, max=w)
    boxes[:, 1].clamp_(min=0, max=h)
    boxes[:, 2].clamp_(min=0, max=w)
    boxes[:, 3].clamp_(min=0, max=h)
    return boxes


def nonempty(boxes, threshold: float = 0.0):
    return ((boxes[:, 2] - boxes[:, 0]) > threshold) & ((boxes[:, 3] - boxes[:, 1]) > threshold)


class FasterRCNNStandIn(nn.Module):
    def __init__(self, classes=4, fpn=16, pre_nms=100, post_nms=50, dets=20):
        super().__init__()
        self.register_buffer("pixel_mean", torch.tensor([103.53, 116.28, 123.675]).view(-1, 1, 1))
        self.register_buffer("pixel_std", torch.tensor([1.0, 1.0, 1.0]).view(-1, 1, 1))
        self.stem = ConvBN(3, 8, 7, 2)
        chans = [(8, 8, 16, 1), (16, 8, 32, 2), (32, 16, 64, 2), (64, 32, 128, 2)]
        self.stages = nn.ModuleList([Bottleneck(*c) for c in chans])
        self.lateral = nn.ModuleList([nn.Conv2d(c[2], fpn, 1) for c in chans])
        self.output = nn.ModuleList([nn.Conv2d(fpn, fpn, 3, 1, 1) for _ in chans])
        self.strides = [4, 8, 16, 32, 64]
        self.rpn_conv = nn.Conv2d(fpn, fpn, 3, 1, 1)
        self.rpn_obj = nn.Conv2d(fpn, 3, 1)
        self.rpn_delta = nn.Conv2d(fpn, 12, 1)
        cells = []
        for size in (32, 64, 128, 256, 512):
            rows = []
            for ratio in (0.5, 1.0, 2.0):
                aw = math.sqrt(size * size / ratio)
                ah = aw * ratio
                rows.append([-aw / 2.0, -ah / 2.0, aw / 2.0, ah / 2.0])
            cells.append(torch.tensor(rows))
        self.register_buffer("cell_anchors", torch.stack(cells))
        self.fc1 = nn.Linear(fpn * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 64)
        self.cls_score = nn.Linear(64, classes + 1)
        self.bbox_pred = nn.Linear(64, classes * 4)
        self.pre_nms, self.post_nms, self.dets = pre_nms, post_nms, dets

    def anchors(self, sizes: List[Tuple[int, int]]) -> List[torch.Tensor]:
        out: List[torch.Tensor] = []
        for i, (gh, gw) in enumerate(sizes):
            s = self.strides[i]
            xs = torch.arange(0.0, gw * s, step=s, dtype=torch.float32, device=self.cell_anchors.device)
            ys = torch.arange(0.0, gh * s, step=s, dtype=torch.float32, device=self.cell_anchors.device)
            sy, sx = torch.meshgrid(ys, xs, indexing="ij")
            sx, sy = sx.reshape(-1), sy.reshape(-1)
            shifts = torch.stack((sx, sy, sx, sy), dim=1)
            out.append((shifts.view(-1, 1, 4) + self.cell_anchors[i].view(1, -1, 4)).reshape(-1, 4))
        return out

    def forward(self, images):
        # detectron2 runs inference under no_grad (its in-place box clipping needs it)
        with torch.no_grad():
            return self._inference(images)

    def _inference(self, images):
        n, _, h, w = images.shape
        # preprocess + ImageList.from_tensors (size divisibility 32)
        normed = [(images[i] - self.pixel_mean) / self.pixel_std for i in range(n)]
        ph, pw = (h + 31) // 32 * 32, (w + 31) // 32 * 32
        batched = normed[0].new_full((n, 3, ph, pw), 0.0)
        for i in range(n):
            batched[i, :, :h, :w].copy_(normed[i])

        x = F.max_pool2d(F.relu_(self.stem(batched)), kernel_size=3, stride=2, padding=1)
        feats: List[torch.Tensor] = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        prev = self.lateral[3](feats[3])
        pyramid = [self.output[3](prev)]
        for j in (2, 1, 0):
            prev = self.lateral[j](feats[j]) + F.interpolate(prev, scale_factor=2.0, mode="nearest")
            pyramid.insert(0, self.output[j](prev))
        pyramid.append(F.max_pool2d(pyramid[-1], kernel_size=1, stride=2, padding=0))

        # RPN
        logits, deltas, sizes = [], [], []
        for f in pyramid:
            t = F.relu(self.rpn_conv(f))
            logits.append(self.rpn_obj(t).permute(0, 2, 3, 1).flatten(1))
            d = self.rpn_delta(t)
            deltas.append(d.view(d.shape[0], -1, 4, d.shape[-2], d.shape[-1]).permute(0, 3, 4, 1, 2).flatten(1, -2))
            sizes.append((f.shape[-2], f.shape[-1]))
        anchors = self.anchors(sizes)
        proposals = []
        for a, d in zip(anchors, deltas):
            b = d.shape[0]
            a = a.unsqueeze(0).expand(b, -1, -1).reshape(-1, 4)
            proposals.append(decode(d.reshape(-1, 4), a, (1.0, 1.0, 1.0, 1.0), math.log(1000.0 / 16)).view(b, -1, 4))

        # find_top_rpn_proposals
        batch_idx = torch.arange(n, device=images.device)
        top_scores, top_boxes, level_ids = [], [], []
        for lvl, (props, lg) in enumerate(zip(proposals, logits)):
            k = min(self.pre_nms, lg.shape[1])
            lg, idx = lg.sort(descending=True, dim=1)
            top_scores.append(lg[batch_idx, :k])
            top_boxes.append(props[batch_idx[:, None], idx[batch_idx, :k]])
            level_ids.append(torch.full((k,), lvl, dtype=torch.int64, device=images.device))
        all_scores, all_boxes, all_lvl = torch.cat(top_scores, 1), torch.cat(top_boxes, 1), torch.cat(level_ids, 0)
        rois: List[torch.Tensor] = []
        for i in range(n):
            boxes, scores, lvl = all_boxes[i], all_scores[i], all_lvl
            valid = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores)
            if not bool(valid.all()):
                boxes, scores, lvl = boxes[valid], scores[valid], lvl[valid]
            boxes = clip_(boxes.clone(), h, w)
            keep = nonempty(boxes)
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = batched_nms(boxes, scores, lvl, 0.7)[: self.post_nms]
            rois.append(boxes[keep])

        # ROIPooler over P2-P5
        fmt = torch.cat([torch.cat([torch.full((r.shape[0], 1), float(i), device=r.device), r], 1)
                         for i, r in enumerate(rois)], 0)
        areas = torch.cat([(r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1]) for r in rois])
        lvl = torch.floor(4 + torch.log2(torch.sqrt(areas) / 224 + 1e-8))
        lvl = torch.clamp(lvl, min=2, max=5).to(torch.int64) - 2
        pooled = torch.zeros((fmt.shape[0], pyramid[0].shape[1], 7, 7), dtype=fmt.dtype, device=fmt.device)
        for j in range(4):
            inds = (lvl == j).nonzero().unbind(1)[0]
            pooled[inds] = roi_align(pyramid[j], fmt[inds], (7, 7), spatial_scale=1.0 / self.strides[j],
                                     sampling_ratio=0, aligned=True)

        # box head + predictor
        t = F.relu_(self.fc1(torch.flatten(pooled, start_dim=1)))
        t = F.relu_(self.fc2(t))
        probs = F.softmax(self.cls_score(t), dim=-1)
        boxes_all = decode(self.bbox_pred(t), torch.cat(rois, 0), (10.0, 10.0, 5.0, 5.0), math.log(1000.0 / 16))
        counts = [r.shape[0] for r in rois]
        outs: List[torch.Tensor] = []
        for boxes, scores in zip(boxes_all.split(counts), probs.split(counts)):
            valid = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores).all(dim=1)
            if not bool(valid.all()):
                boxes, scores = boxes[valid], scores[valid]
            scores = scores[:, :-1]
            ncls = boxes.shape[1] // 4
            boxes = clip_(boxes.reshape(-1, 4), h, w).view(-1, ncls, 4)
            fmask = scores > 0.05
            finds = fmask.nonzero()
            boxes, scores = boxes[fmask], scores[fmask]
            keep = batched_nms(boxes, scores, finds[:, 1], 0.5)[: self.dets]
            boxes, scores, finds = boxes[keep], scores[keep], finds[keep]
            # detector_postprocess back to the requested size (same size here)
            boxes[:, 0::2] *= float(w) / pw
            boxes[:, 1::2] *= float(h) / ph
            boxes = clip_(boxes, h, w)
            ok = nonempty(boxes)
            outs += [boxes[ok], scores[ok], finds[ok][:, 1]]
        return tuple(outs)


def build():
    return FasterRCNNStandIn()


def example_inputs():
    return (torch.rand(2, 3, 120, 150) * 255,)
