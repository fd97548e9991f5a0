"""FCOS R50-FPN COCO detector (mmdetection v2.x, commit dd0e8ede) as tools/deployment/pytorch2onnx.py exports it for
the contrib Fcos recipe (--shape 800 1333 --dynamic-export, opset 11).

Operator structure (own code): torchvision ResNet-50 trunk (the recipe's is caffe style, stride on the 1x1 conv: the
same op types), FPN from C3 (lateral 1x1 convs, nearest F.interpolate of the upper level to the lateral's run-time
size, 3x3 output convs, P6 = 3x3 s2 conv on P5's output, P7 = 3x3 s2 conv on ReLU(P6)), FCOS head without norm shared
over the five levels (4 + 4 3x3 convs with ReLU, cls 80, reg 4 times a learnable Scale then exp, centerness on the cls
branch), and FCOSHead.get_bboxes' ONNX path: points from torch.arange over each level's run-time H, W (meshgrid, times
the stride plus stride // 2), scores = sigmoid, per-level TopK on max(scores * centerness) with
k = get_k_for_topk(1000, level size) (torch.where(k < size, k, size) under export), gathers by the flat index
size * batch_inds + topk_inds, distance2bbox clipped to the run-time image shape (divide, clamp [0, 1], multiply).

variant "upstream" (default): mmdet's add_dummy_nms_for_onnx (as we render mmdet 2.x's helper): scores permuted to
[N, C, M], NonMaxSuppression (max 200 per class, iou 0.5, score 0.05) through an autograd.Function symbolic, a
ScatterND mask built from the selected indices over all boxes x classes, TopK 100, dets [N, 100, 5] and labels.
variant "recipe": fcos.diff: constant TopK k (1000, or the level's size where smaller), the flat index computed in
int32 between Casts, points.expand_as(zeros(N, M, 2)), and BatchMultiClassNMS (CANN custom op, fp16 in / out, score
0.05, iou 0.5, 100 per class, 100 total) in the default ONNX domain; torch 1.13's checker rejects that domain after the
file is written, and export() swallows exactly that error (as the Faster R-CNN builder does).
"""
import os
import torch
from torch import nn
import torch.nn.functional as F
import torchvision

OPSET = 11
INPUT_NAMES = ["input"]
OUTPUT_NAMES = ["dets", "labels"]
DYNAMIC_AXES = {"input": {0: "batch", 2: "width", 3: "height"},
                "dets": {0: "batch", 1: "num_dets"}, "labels": {0: "batch", 1: "num_dets"}}
STRIDES = [8, 16, 32, 64, 128]
NUM_CLASSES = 80
NMS_PRE, SCORE_THR, IOU_THR, MAX_PER_IMG, MAX_PER_CLASS = 1000, 0.05, 0.5, 100, 200


class DummyONNXNMSop(torch.autograd.Function):
    @staticmethod
    def forward(ctx, boxes, scores, max_per_class, iou_thr, score_thr):
        return DummyONNXNMSop.output

    @staticmethod
    def symbolic(g, boxes, scores, max_per_class, iou_thr, score_thr):
        return g.op("NonMaxSuppression", boxes, scores, max_per_class, iou_thr, score_thr)


class BatchNMSOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, bboxes, scores, score_thr, iou_thr, max_per_class, max_total):
        return (bboxes[:, :max_total, 0, :], scores[:, :max_total, 0],
                torch.arange(max_total, dtype=torch.long), torch.Tensor([max_total]))

    @staticmethod
    def symbolic(g, bboxes, scores, score_thr, iou_thr, max_per_class, max_total):
        return g.op("BatchMultiClassNMS", bboxes, scores, score_threshold_f=score_thr, iou_threshold_f=iou_thr,
                    max_size_per_class_i=max_per_class, max_total_size_i=max_total, outputs=4)


def get_k_for_topk(k, size):
    if k <= 0 or size <= 0:
        return -1
    if torch.onnx.is_in_onnx_export():
        return torch.where(k < size, k, size)
    return k if k < size else -1


def dynamic_clip_for_onnx(x1, y1, x2, y2, max_shape):
    x1, y1 = x1 / max_shape[1], y1 / max_shape[0]
    x2, y2 = x2 / max_shape[1], y2 / max_shape[0]
    x1, y1, x2, y2 = [torch.clamp(v, 0, 1) for v in (x1, y1, x2, y2)]
    return x1 * max_shape[1], y1 * max_shape[0], x2 * max_shape[1], y2 * max_shape[0]


def distance2bbox(points, distance, max_shape):
    x1 = points[..., 0] - distance[..., 0]
    y1 = points[..., 1] - distance[..., 1]
    x2 = points[..., 0] + distance[..., 2]
    y2 = points[..., 1] + distance[..., 3]
    x1, y1, x2, y2 = dynamic_clip_for_onnx(x1, y1, x2, y2, max_shape)
    return torch.stack([x1, y1, x2, y2], dim=-1)


def add_dummy_nms_for_onnx(boxes, scores, max_per_class, iou_thr, score_thr, after_top_k):
    max_per_class = torch.LongTensor([max_per_class])
    iou_thr = torch.tensor([iou_thr], dtype=torch.float32)
    score_thr = torch.tensor([score_thr], dtype=torch.float32)
    batch_size = scores.shape[0]
    num_class = scores.shape[2]
    scores = scores.permute(0, 2, 1)
    num_box = boxes.shape[1]
    state = torch._C._get_tracing_state()
    torch._C._set_tracing_state(None)
    DummyONNXNMSop.output = torch.cat([torch.randint(int(batch_size), (2, 1)), torch.randint(int(num_class), (2, 1)),
                                       torch.randint(int(num_box), (2, 1))], dim=1)
    torch._C._set_tracing_state(state)
    selected = DummyONNXNMSop.apply(boxes, scores, max_per_class, iou_thr, score_thr)
    batch_inds, cls_inds, box_inds = selected[:, 0], selected[:, 1], selected[:, 2]
    labels = torch.arange(num_class, dtype=torch.long).view(1, num_class, 1).expand_as(scores)
    scores = scores.reshape(-1, 1)
    boxes = boxes.reshape(batch_size, -1).repeat(1, num_class).reshape(-1, 4)
    pos_inds = (num_class * batch_inds + cls_inds) * num_box + box_inds
    mask = scores.new_zeros(scores.shape)
    mask[pos_inds, :] += 1
    scores = scores * mask
    boxes = boxes * mask
    scores = scores.reshape(batch_size, -1)
    boxes = boxes.reshape(batch_size, -1, 4)
    labels = labels.reshape(batch_size, -1)
    nms_after = get_k_for_topk(torch.tensor(after_top_k, dtype=torch.long), num_box * num_class)
    if nms_after > 0:
        _, topk_inds = scores.topk(nms_after)
        batch_inds = torch.arange(batch_size).view(-1, 1).expand_as(topk_inds)
        transformed = scores.shape[1] * batch_inds + topk_inds
        scores = scores.reshape(-1, 1)[transformed, :].reshape(batch_size, -1)
        boxes = boxes.reshape(-1, 4)[transformed, :].reshape(batch_size, -1, 4)
        labels = labels.reshape(-1, 1)[transformed, :].reshape(batch_size, -1)
    return torch.cat([boxes, scores.unsqueeze(2)], dim=2), labels


def batch_nms_op(bboxes, scores, score_thr, iou_thr, max_per_class, max_total):
    bboxes = bboxes.reshape(bboxes.size(0), int(bboxes.shape[1]), -1, 4).half()
    scores = scores.reshape(scores.size(0), int(scores.shape[1]), -1).half()
    nb, ns, nc, _ = BatchNMSOp.apply(bboxes, scores, score_thr, iou_thr, max_per_class, max_total)
    dets = torch.cat((nb.float().reshape((bboxes.size(0), max_total, 4)),
                      ns.float().reshape((scores.size(0), max_total, 1))), -1)
    return dets, nc.long().reshape((bboxes.size(0), max_total))


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return x * self.scale


class FCOS(nn.Module):
    def __init__(self, variant="upstream"):
        super().__init__()
        self.variant = variant
        r = torchvision.models.resnet50(weights=None)
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layers = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.lateral = nn.ModuleList([nn.Conv2d(c, 256, 1) for c in (512, 1024, 2048)])
        self.fpn = nn.ModuleList([nn.Conv2d(256, 256, 3, padding=1) for _ in range(3)])
        self.extra = nn.ModuleList([nn.Conv2d(256, 256, 3, stride=2, padding=1) for _ in range(2)])
        self.cls_convs = nn.ModuleList([nn.Conv2d(256, 256, 3, padding=1) for _ in range(4)])
        self.reg_convs = nn.ModuleList([nn.Conv2d(256, 256, 3, padding=1) for _ in range(4)])
        self.conv_cls = nn.Conv2d(256, NUM_CLASSES, 3, padding=1)
        self.conv_reg = nn.Conv2d(256, 4, 3, padding=1)
        self.conv_centerness = nn.Conv2d(256, 1, 3, padding=1)
        self.scales = nn.ModuleList([Scale() for _ in STRIDES])

    def neck(self, feats):
        lats = [l(f) for l, f in zip(self.lateral, feats[1:])]
        for i in range(len(lats) - 1, 0, -1):
            lats[i - 1] = lats[i - 1] + F.interpolate(lats[i], size=lats[i - 1].shape[2:], mode="nearest")
        outs = [c(l) for c, l in zip(self.fpn, lats)]
        outs.append(self.extra[0](outs[-1]))
        outs.append(self.extra[1](F.relu(outs[-1])))
        return outs

    def head(self, x, scale):
        cls_feat, reg_feat = x, x
        for c in self.cls_convs:
            cls_feat = F.relu(c(cls_feat))
        for c in self.reg_convs:
            reg_feat = F.relu(c(reg_feat))
        return self.conv_cls(cls_feat), scale(self.conv_reg(reg_feat)).float().exp(), self.conv_centerness(cls_feat)

    @staticmethod
    def points(featmap_size, stride, dtype):
        h, w = featmap_size
        x_range = torch.arange(w, dtype=dtype)
        y_range = torch.arange(h, dtype=dtype)
        y, x = torch.meshgrid(y_range, x_range)
        return torch.stack((x.reshape(-1) * stride, y.reshape(-1) * stride), dim=-1) + stride // 2

    def forward(self, img):
        img_shape = torch._shape_as_tensor(img)[2:]
        x = self.stem(img)
        feats = []
        for layer in self.layers:
            x = layer(x)
            feats.append(x)
        outs = [self.head(p, s) for p, s in zip(self.neck(feats), self.scales)]
        cls_scores, bbox_preds, centernesses = zip(*outs)
        batch_size = cls_scores[0].shape[0]
        nms_pre_tensor = torch.tensor(NMS_PRE, dtype=torch.long)
        mlvl_bboxes, mlvl_scores, mlvl_centerness = [], [], []
        for cls_score, bbox_pred, centerness, stride in zip(cls_scores, bbox_preds, centernesses, STRIDES):
            points = self.points(cls_score.size()[-2:], stride, bbox_pred.dtype)
            scores = cls_score.permute(0, 2, 3, 1).reshape(batch_size, -1, NUM_CLASSES).sigmoid()
            centerness = centerness.permute(0, 2, 3, 1).reshape(batch_size, -1).sigmoid()
            bbox_pred = bbox_pred.permute(0, 2, 3, 1).reshape(batch_size, -1, 4)
            if self.variant == "recipe":
                s = torch.zeros(batch_size, points.size(0), 2)
                points = points.expand_as(s)
                nms_pre = bbox_pred.shape[1]
                if nms_pre_tensor > 0 and bbox_pred.shape[1] > nms_pre_tensor:
                    nms_pre = nms_pre_tensor
            else:
                points = points.expand(batch_size, -1, 2)
                nms_pre = get_k_for_topk(nms_pre_tensor, bbox_pred.shape[1])
            if nms_pre > 0:
                max_scores, _ = (scores * centerness[..., None]).max(-1)
                _, topk_inds = max_scores.topk(nms_pre)
                if self.variant == "recipe":
                    batch_inds = torch.arange(batch_size).view(-1, 1).to(dtype=torch.int32).expand_as(topk_inds).long()
                    transformed = bbox_pred.shape[1] * batch_inds.to(dtype=torch.int32) + topk_inds.to(dtype=torch.int32)
                    transformed = transformed.to(dtype=torch.int64)
                else:
                    batch_inds = torch.arange(batch_size).view(-1, 1).expand_as(topk_inds).long()
                    transformed = bbox_pred.shape[1] * batch_inds + topk_inds
                points = points.reshape(-1, 2)[transformed, :].reshape(batch_size, -1, 2)
                bbox_pred = bbox_pred.reshape(-1, 4)[transformed, :].reshape(batch_size, -1, 4)
                scores = scores.reshape(-1, NUM_CLASSES)[transformed, :].reshape(batch_size, -1, NUM_CLASSES)
                centerness = centerness.reshape(-1, 1)[transformed].reshape(batch_size, -1)
            mlvl_bboxes.append(distance2bbox(points, bbox_pred, img_shape))
            mlvl_scores.append(scores)
            mlvl_centerness.append(centerness)
        bboxes = torch.cat(mlvl_bboxes, dim=1)
        scores = torch.cat(mlvl_scores, dim=1) * torch.cat(mlvl_centerness, dim=1).unsqueeze(2)
        if self.variant == "recipe":
            return batch_nms_op(bboxes, scores, SCORE_THR, IOU_THR, MAX_PER_IMG, MAX_PER_IMG)
        return add_dummy_nms_for_onnx(bboxes, scores, MAX_PER_CLASS, IOU_THR, SCORE_THR, MAX_PER_IMG)


def build(variant="upstream"):
    return FCOS(variant).eval()


def example_inputs():
    return (torch.randn(1, 3, 800, 1333),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    model = build(variant)
    try:
        torch.onnx.export(model, example_inputs(), path, input_names=INPUT_NAMES, output_names=OUTPUT_NAMES,
                          export_params=True, keep_initializers_as_inputs=True, do_constant_folding=True,
                          opset_version=OPSET, dynamic_axes=DYNAMIC_AXES)
    except Exception as err:            # CheckerError / onnx ValidationError, depending on build
        # BatchMultiClassNMS lives in the default domain; the file is written before the check
        if "No Op registered" not in str(err) or not os.path.exists(path):
            raise
