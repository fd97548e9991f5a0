"""Faster R-CNN R50-FPN 1x COCO (mmdetection v2.8 faster_rcnn_r50_fpn_1x_coco) single-image
test graph, as exported by mmdetection tools/pytorch2onnx.py --shape=1216 (opset 11).

Own code reproducing the exported operator structure:
- backbone: torchvision ResNet-50 trunk (mmdet's ResNet-50 'pytorch' style is the same net);
- FPN: 1x1 laterals, nearest x2 upsample + Add top-down, 3x3 outputs, P6 = max_pool2d(k1, s2);
- RPN head: shared 3x3 conv + ReLU, 1x1 cls (3 anchors, sigmoid) and 1x1 reg (12); per level
  (strides 4..64, anchors scale 8, ratios 0.5/1/2; the anchor table is a constant here)
  permute/reshape, top-1000 scores, gather deltas/anchors, then delta2bbox with clamping;
- proposals: NMS (iou 0.7) to nms_post=1000 boxes; rois = [batch index 0, box];
- RoI feature extraction 7x7 over P2..P5, Shared2FC bbox head (1024, 1024), 81-way softmax
  and 80x4 class-specific deltas, delta2bbox (stds 0.1,0.1,0.2,0.2), score > 0.05 and NMS
  iou 0.5, max 100 detections -> dets [100,5], labels [100].
- rois / cls_score / bbox_pred go through a one-output split per image, as in mmdet's
  test mixin (single image -> Split with one output).

variant="recipe" (DEFAULT - the graph the recipe feeds to modify.py and ATC, mmdetection.patch
  applied): RPN top-k written as torch.topk, deltas decoded with constant means/stds and a
  transposed roi table, both NMS steps as the CANN custom op BatchMultiClassNMS (inputs cast to
  fp16, 4 outputs, attrs score_threshold/iou_threshold/max_size_per_class/max_total_size) and the
  RoI extraction as the CANN custom op RoiExtractor (5 inputs f0..f3, rois; attrs aligned=1,
  finest_scale=56, pooled 7x7, pool_mode avg, roi_scale_factor 0, sample_num 0,
  spatial_scale [1/4..1/32]). Both custom ops are in the default ONNX domain, so the ONNX
  checker rejects the file (the recipe exports with enable_onnx_checker=False); export()
  writes the file anyway.
variant="upstream": the unpatched mmdet 2.8 export path approximated with torchvision ops -
  sort-based top-k, batched NMS -> NonMaxSuppression, level mapping (sqrt(area)/56, log2,
  floor, clamp) + one RoiAlign (aligned, sampling 0) per level masked and summed, score
  filtering with NonZero. (mmcv's own symbolics are not available here; torchvision's
  roi_align / nms symbolics give the same ONNX op types.)
Export: opset 11, static input 'input' [1,3,1216,1216], outputs 'boxes', 'labels'.
"""
import math
import os
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
import torchvision

OPSET = 11
INPUT_NAMES = ["input"]
OUTPUT_NAMES = ["boxes", "labels"]
SIZE = 1216
STRIDES = [4, 8, 16, 32, 64]
NUM_CLASSES = 80
NMS_PRE, NMS_POST, MAX_PER_IMG = 1000, 1000, 100
WH_RATIO_CLIP = 16 / 1000


# ----------------------------------------------------------------- CANN custom ops (recipe)
class _BatchMultiClassNMS(torch.autograd.Function):
    @staticmethod
    def forward(ctx, boxes, scores, score_thr, iou_thr, max_per_class, max_total):
        return (boxes[:, :max_total, 0, :], scores[:, :max_total, 0],
                torch.arange(max_total, dtype=torch.long).unsqueeze(0).to(scores.dtype),
                torch.tensor([max_total], dtype=torch.float32))

    @staticmethod
    def symbolic(g, boxes, scores, score_thr, iou_thr, max_per_class, max_total):
        return g.op("BatchMultiClassNMS", boxes, scores, score_threshold_f=score_thr,
                    iou_threshold_f=iou_thr, max_size_per_class_i=max_per_class,
                    max_total_size_i=max_total, outputs=4)


def npu_nms(boxes, scores, score_thr, iou_thr, max_num):
    """boxes [N, C*4] or [N, 4], scores [N, C] -> dets [max,5], labels [max]."""
    n = int(boxes.shape[0])
    b = boxes.reshape(1, n, -1, 4).half()
    s = scores.reshape(1, n, -1).half()
    ob, os_, oc, _ = _BatchMultiClassNMS.apply(b, s, score_thr, iou_thr, max_num, max_num)
    dets = torch.cat((ob.float().reshape(max_num, 4), os_.float().reshape(max_num, 1)), -1)
    return dets, oc.long().reshape(max_num)


class _RoiExtractor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, f0, f1, f2, f3, rois):
        return torch.ones(rois.size(0), 256, 7, 7)

    @staticmethod
    def symbolic(g, f0, f1, f2, f3, rois):
        return g.op("RoiExtractor", f0, f1, f2, f3, rois, aligned_i=1, finest_scale_i=56,
                    pooled_height_i=7, pooled_width_i=7, pool_mode_s="avg", roi_scale_factor_i=0,
                    sample_num_i=0, spatial_scale_f=[0.25, 0.125, 0.0625, 0.03125], outputs=1)


# ----------------------------------------------------------------- upstream NMS
def class_offset_nms(boxes, scores, idxs, iou):
    """batched NMS by per-class coordinate offsets (as mmcv's batched_nms does), one
    torchvision nms call -> ONNX NonMaxSuppression."""
    offsets = idxs.to(boxes) * (boxes.max() + 1)
    return torchvision.ops.nms(boxes + offsets[:, None], scores, iou)


# ----------------------------------------------------------------- shared pieces
def make_anchors():
    out = []
    for s in STRIDES:
        fm = math.ceil(SIZE / s)
        ratios = np.array([0.5, 1.0, 2.0])
        h_r = np.sqrt(ratios)
        w_r = 1 / h_r
        ws, hs = s * w_r * 8, s * h_r * 8
        base = np.stack([-0.5 * ws, -0.5 * hs, 0.5 * ws, 0.5 * hs], axis=-1)
        xs, ys = np.meshgrid(np.arange(fm) * s, np.arange(fm) * s)
        shifts = np.stack([xs.ravel(), ys.ravel(), xs.ravel(), ys.ravel()], axis=-1)
        out.append(torch.tensor((shifts[:, None, :] + base[None]).reshape(-1, 4), dtype=torch.float32))
    return out


def delta2bbox(rois, deltas, means, stds, recipe):
    if recipe:
        reps = int(deltas.size(1)) // 4                 # .numpy() in the patch: a constant
    else:
        reps = deltas.size(1) // 4                      # traced size
    m = deltas.new_tensor(means).view(1, -1).repeat(1, reps)
    sd = deltas.new_tensor(stds).view(1, -1).repeat(1, reps)
    d = deltas * sd + m
    dx, dy, dw, dh = d[:, 0::4], d[:, 1::4], d[:, 2::4], d[:, 3::4]
    mr = float(np.abs(np.log(WH_RATIO_CLIP)))
    dw, dh = dw.clamp(min=-mr, max=mr), dh.clamp(min=-mr, max=mr)
    if recipe:
        r = rois.permute(1, 0)
        px = ((r[0, :] + r[2, :]) * 0.5).unsqueeze(1).expand_as(dx)
        py = ((r[1, :] + r[3, :]) * 0.5).unsqueeze(1).expand_as(dy)
        pw = (r[2, :] - r[0, :]).unsqueeze(1).expand_as(dw)
        ph = (r[3, :] - r[1, :]).unsqueeze(1).expand_as(dh)
    else:
        px = ((rois[:, 0] + rois[:, 2]) * 0.5).unsqueeze(1).expand_as(dx)
        py = ((rois[:, 1] + rois[:, 3]) * 0.5).unsqueeze(1).expand_as(dy)
        pw = (rois[:, 2] - rois[:, 0]).unsqueeze(1).expand_as(dw)
        ph = (rois[:, 3] - rois[:, 1]).unsqueeze(1).expand_as(dh)
    gw, gh = pw * dw.exp(), ph * dh.exp()
    gx, gy = px + pw * dx, py + ph * dy
    x1, y1 = (gx - gw * 0.5).clamp(min=0, max=SIZE), (gy - gh * 0.5).clamp(min=0, max=SIZE)
    x2, y2 = (gx + gw * 0.5).clamp(min=0, max=SIZE), (gy + gh * 0.5).clamp(min=0, max=SIZE)
    return torch.stack([x1, y1, x2, y2], dim=-1).view(deltas.size())


class FPN(nn.Module):
    def __init__(self, ins=(256, 512, 1024, 2048), c=256):
        super().__init__()
        self.lat = nn.ModuleList([nn.Conv2d(i, c, 1) for i in ins])
        self.out = nn.ModuleList([nn.Conv2d(c, c, 3, padding=1) for _ in ins])

    def forward(self, feats):
        lat = [l(f) for l, f in zip(self.lat, feats)]
        for i in range(len(lat) - 1, 0, -1):
            lat[i - 1] = lat[i - 1] + F.interpolate(lat[i], size=lat[i - 1].shape[2:], mode="nearest")
        outs = [o(x) for o, x in zip(self.out, lat)]
        outs.append(F.max_pool2d(outs[-1], 1, stride=2))
        return outs


class FasterRCNN(nn.Module):
    def __init__(self, recipe=True):
        super().__init__()
        self.recipe = recipe
        r = torchvision.models.resnet50(weights=None)
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layers = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.neck = FPN()
        self.rpn_conv = nn.Conv2d(256, 256, 3, padding=1)
        self.rpn_cls = nn.Conv2d(256, 3, 1)
        self.rpn_reg = nn.Conv2d(256, 12, 1)
        self.fc1 = nn.Linear(256 * 49, 1024)
        self.fc2 = nn.Linear(1024, 1024)
        self.fc_cls = nn.Linear(1024, NUM_CLASSES + 1)
        self.fc_reg = nn.Linear(1024, NUM_CLASSES * 4)
        for i, a in enumerate(make_anchors()):
            self.register_buffer("anchors%d" % i, a)

    # --------------------------------------------------------- RPN proposals
    def proposals(self, feats):
        scores_l, deltas_l, anchors_l, ids_l = [], [], [], []
        for lvl, x in enumerate(feats):
            t = F.relu(self.rpn_conv(x))
            s = self.rpn_cls(t)[0].permute(1, 2, 0).reshape(-1).sigmoid()
            d = self.rpn_reg(t)[0].permute(1, 2, 0).reshape(-1, 4)
            a = getattr(self, "anchors%d" % lvl)
            if s.shape[0] > NMS_PRE:
                if self.recipe:
                    s, idx = torch.topk(s, NMS_PRE)
                else:
                    ranked, order = s.sort(descending=True)
                    idx, s = order[:NMS_PRE], ranked[:NMS_PRE]
                d, a = d[idx, :], a[idx, :]
            scores_l.append(s); deltas_l.append(d); anchors_l.append(a)
            ids_l.append(s.new_full((s.size(0),), lvl, dtype=torch.long))
        scores, deltas = torch.cat(scores_l), torch.cat(deltas_l)
        anchors, ids = torch.cat(anchors_l), torch.cat(ids_l)
        props = delta2bbox(anchors, deltas, [0.0] * 4, [1.0] * 4, self.recipe)
        if self.recipe:
            dets, _ = npu_nms(props, scores, 0.0, 0.7, NMS_POST)
            return dets
        keep = class_offset_nms(props, scores, ids, 0.7)[:NMS_POST]
        return torch.cat([props[keep], scores[keep, None]], -1)

    # --------------------------------------------------------- RoI features
    def roi_feats(self, feats, rois):
        if self.recipe:
            return _RoiExtractor.apply(feats[0], feats[1], feats[2], feats[3], rois)
        scale = torch.sqrt((rois[:, 3] - rois[:, 1]) * (rois[:, 4] - rois[:, 2]))
        lvls = torch.floor(torch.log2(scale / 56 + 1e-6)).clamp(min=0, max=3).long()
        out = None
        for i in range(4):
            t = torchvision.ops.roi_align(feats[i], rois, (7, 7), spatial_scale=1.0 / STRIDES[i],
                                          sampling_ratio=0, aligned=True)
            t = t * (lvls == i).float().reshape(-1, 1, 1, 1)
            out = t if out is None else out + t
        return out

    def forward(self, img):
        x = self.stem(img)
        c = []
        for layer in self.layers:
            x = layer(x)
            c.append(x)
        feats = self.neck(c)
        props = self.proposals(feats)
        rois = torch.cat([props.new_zeros(props.size(0), 1), props[:, :4]], dim=-1)
        n = int(rois.size(0))
        x = self.roi_feats(feats[:4], rois).flatten(1)
        x = F.relu(self.fc2(F.relu(self.fc1(x))))
        # mmdet's test mixin splits rois and predictions back per image (one image here)
        rois = rois.split((n,), 0)[0]
        cls_score = self.fc_cls(x).split((n,), 0)[0]
        bbox_pred = self.fc_reg(x).split((n,), 0)[0]
        scores = F.softmax(cls_score, dim=1)
        boxes = delta2bbox(rois[:, 1:], bbox_pred, [0.0] * 4, [0.1, 0.1, 0.2, 0.2], self.recipe)
        if self.recipe:
            return npu_nms(boxes, scores[:, :-1], 0.05, 0.5, MAX_PER_IMG)
        b = boxes.view(n, -1, 4)
        s = scores[:, :-1]
        labels = torch.arange(NUM_CLASSES).view(1, -1).expand_as(s)
        b, s, labels = b.reshape(-1, 4), s.reshape(-1), labels.reshape(-1)
        inds = (s > 0.05).nonzero(as_tuple=False).squeeze(1)
        b, s, labels = b[inds], s[inds], labels[inds]
        keep = class_offset_nms(b, s, labels, 0.5)[:MAX_PER_IMG]
        return torch.cat([b[keep], s[keep, None]], -1), labels[keep]


def build(variant="recipe"):
    return FasterRCNN(recipe=(variant != "upstream")).eval()


def example_inputs():
    return (torch.randn(1, 3, SIZE, SIZE),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    model = build(variant)
    try:
        torch.onnx.export(model, example_inputs(), path, input_names=INPUT_NAMES,
                          output_names=OUTPUT_NAMES, export_params=True,
                          keep_initializers_as_inputs=True, do_constant_folding=True,
                          opset_version=OPSET)
    except Exception as err:            # CheckerError / onnx ValidationError, depending on build
        # the CANN custom ops live in the default domain; the file is written before the check
        if "No Op registered" not in str(err) or not os.path.exists(path):
            raise
