"""vision.py - the zoo's vision models (torchvision architectures, random
weights): classification, detection, segmentation, video, optical flow, and
a few image-to-image / generative networks written in torch.

Sizes are reduced (64-128 px images, 1x3x4x64x64 clips, 10 classes) and
the largest families use their small members or fewer blocks per stage; the
blocks themselves are torchvision's. Where torchvision's fixed-size layers
stop a model from running at a reduced size, or the exporter cannot follow
a dynamic dimension, the comment at the model says what was changed.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm
from torchvision.models import video as tvv
from torchvision.models import segmentation as tvs
from torchvision.models import detection as tvd
from torchvision.models import optical_flow as tvf

from zoo_common import batch_dyn, image_dyn, image_inputs, zoo_model

NC = 10  # classes of the classifiers (keeps the heads small)

# Convolutional classifiers: dynamic batch, height and width.
IMG = [dict(n=1, h=64, w=64), dict(n=2, h=96, w=80)]
IMG_DYN = {"input": {0: "batch", 2: "height", 3: "width"},
           "output": {0: "batch"}}
# Models whose layers fix the image size (transformers' position
# embeddings and windows, fixed pooling): dynamic batch only.
BATCH_DYN = {"input": {0: "batch"}, "output": {0: "batch"}}


def img_sizes(h, w=None, h2=None, w2=None, n2=2):
    w = w or h
    return [dict(n=1, h=h, w=w), dict(n=n2, h=h2 or h, w=w2 or w)]


def cls(name, sizes=IMG, dyn=IMG_DYN, inputs=None, **kw):
    return zoo_model(name, "vision-cls", inputs=inputs or image_inputs(),
                     sizes=sizes,
                     input_names=["input"], output_names=["output"],
                     dynamic_axes=dyn, **kw)


# ---- classification ---------------------------------------------------------

# AlexNet and VGG pool to a fixed 6x6 / 7x7 before their classifier; the
# exporter turns that AdaptiveAvgPool into AveragePool only when the input
# size is known and divisible, so they run at 224 px with a dynamic batch.
# Their 4096-wide classifiers (150-400 MB of weights) are narrowed to 256.
@cls("alexnet", sizes=img_sizes(224), dyn=BATCH_DYN)
def alexnet():
    m = tvm.alexnet(num_classes=NC)
    m.classifier[1] = nn.Linear(256 * 6 * 6, 256)
    m.classifier[4] = nn.Linear(256, 256)
    m.classifier[6] = nn.Linear(256, NC)
    return m


@cls("vgg11_bn", sizes=img_sizes(224), dyn=BATCH_DYN)
def vgg11_bn():
    m = tvm.vgg11_bn(num_classes=NC)
    m.classifier[0] = nn.Linear(512 * 7 * 7, 256)
    m.classifier[3] = nn.Linear(256, 256)
    m.classifier[6] = nn.Linear(256, NC)
    return m


@cls("resnet18", ci=True, ci_variants=("13-static", "17-dynamic"))
def resnet18():
    return tvm.resnet18(num_classes=NC)


# ResNet-50's bottleneck blocks, one per stage ("ResNet-26").
@cls("resnet_bottleneck")
def resnet_bottleneck():
    return tvm.resnet.ResNet(tvm.resnet.Bottleneck, [1, 1, 1, 1],
                             num_classes=NC)


# ResNeXt-50 32x4d's grouped bottlenecks, one per stage.
@cls("resnext_32x4d", ci=True, ci_variants=("17-static",))
def resnext_32x4d():
    return tvm.resnet.ResNet(tvm.resnet.Bottleneck, [1, 1, 1, 1], groups=32,
                             width_per_group=4, num_classes=NC)


# Wide ResNet-50-2's blocks (width_per_group 128), one per stage.
@cls("wide_resnet")
def wide_resnet():
    return tvm.resnet.ResNet(tvm.resnet.Bottleneck, [1, 1, 1, 1],
                             width_per_group=128, num_classes=NC)


@cls("squeezenet1_0")
def squeezenet1_0():
    return tvm.squeezenet1_0(num_classes=NC)


@cls("squeezenet1_1", ci=True)
def squeezenet1_1():
    return tvm.squeezenet1_1(num_classes=NC)


@cls("densenet121")
def densenet121():
    return tvm.densenet121(num_classes=NC)


# DenseNet with 2 layers per dense block (same layers as densenet121).
@cls("densenet_small", ci=True, ci_variants=("13-dynamic",))
def densenet_small():
    return tvm.densenet.DenseNet(32, (2, 2, 2, 2), 64, num_classes=NC)


# Inception v3 needs at least 75 px.
@cls("inception_v3", sizes=[dict(n=1, h=80, w=80), dict(n=2, h=96, w=112)])
def inception_v3():
    return tvm.Inception3(num_classes=NC, aux_logits=False,
                          init_weights=False)


@cls("googlenet")
def googlenet():
    return tvm.GoogLeNet(num_classes=NC, aux_logits=False,
                         init_weights=False)


@cls("shufflenet_v2_x0_5", ci=True, ci_variants=("17-static",))
def shufflenet_v2_x0_5():
    return tvm.shufflenet_v2_x0_5(num_classes=NC)


@cls("shufflenet_v2_x1_0")
def shufflenet_v2_x1_0():
    return tvm.shufflenet_v2_x1_0(num_classes=NC)


@cls("mobilenet_v2", ci=True, ci_variants=("13-dynamic",))
def mobilenet_v2():
    return tvm.mobilenet_v2(num_classes=NC)


@cls("mobilenet_v3_small", ci=True)
def mobilenet_v3_small():
    return tvm.mobilenet_v3_small(num_classes=NC)


@cls("mobilenet_v3_large")
def mobilenet_v3_large():
    return tvm.mobilenet_v3_large(num_classes=NC)


@cls("mnasnet0_5", ci=True, ci_variants=("13-static",))
def mnasnet0_5():
    return tvm.mnasnet0_5(num_classes=NC)


@cls("mnasnet1_0")
def mnasnet1_0():
    return tvm.mnasnet1_0(num_classes=NC)


@cls("efficientnet_b0", ci=True)
def efficientnet_b0():
    return tvm.efficientnet_b0(num_classes=NC)


# EfficientNetV2-S's stages (Fused-MBConv, then MBConv), one block each.
@cls("efficientnet_v2_s")
def efficientnet_v2_s():
    from torchvision.models.efficientnet import EfficientNet, \
        _efficientnet_conf
    setting, last = _efficientnet_conf("efficientnet_v2_s")
    for c in setting:
        c.num_layers = 1
    return EfficientNet(setting, 0.2, last_channel=last, num_classes=NC)


@cls("regnet_x_400mf", ci=True, ci_variants=("17-static",))
def regnet_x_400mf():
    return tvm.regnet_x_400mf(num_classes=NC)


@cls("regnet_y_400mf")
def regnet_y_400mf():
    return tvm.regnet_y_400mf(num_classes=NC)


# ConvNeXt-T's widths, one block per stage.
@cls("convnext_tiny", ci=True, ci_variants=("13-static",))
def convnext_tiny():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    cfg = [CNBlockConfig(96, 192, 1), CNBlockConfig(192, 384, 1),
           CNBlockConfig(384, 768, 1), CNBlockConfig(768, None, 1)]
    return ConvNeXt(cfg, stochastic_depth_prob=0.0, num_classes=NC)


# Swin: 64 px, patch 4, window 4, embed 48, two blocks (plain and shifted)
# per stage. The shifted-window mask is built from Python ints, so the
# exporter fixes the image size: dynamic batch only.
@cls("swin_t", sizes=img_sizes(64), dyn=BATCH_DYN)
def swin_t():
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer([4, 4], 48, [2, 2, 2, 2], [2, 4, 8, 16], [4, 4],
                           stochastic_depth_prob=0.0, num_classes=NC)


def zero_symbolic(g, self):
    return g.op("Mul", self, g.op("Constant", value_t=torch.tensor(0.0)))


# Swin V2 zeroes the key part of a copy of its qkv bias in place
# (qkv_bias[n:2n].zero_()): torch 1.13 has no ONNX symbolic for aten::zero,
# so the model registers one (x * 0), as a user exporting it would.
@cls("swin_v2_t", sizes=img_sizes(64), dyn=BATCH_DYN)
def swin_v2_t():
    from torchvision.models.swin_transformer import (
        PatchMergingV2, SwinTransformer, SwinTransformerBlockV2)
    for opset in (13, 17):
        torch.onnx.register_custom_op_symbolic("aten::zero", zero_symbolic,
                                               opset)
    return SwinTransformer([4, 4], 48, [2, 2, 2, 2], [2, 4, 8, 16], [4, 4],
                           stochastic_depth_prob=0.0, num_classes=NC,
                           block=SwinTransformerBlockV2,
                           downsample_layer=PatchMergingV2)


# ViT: 64 px, patch 16, 2 layers, width 128 (the position embedding fixes
# the image size).
@cls("vit", sizes=img_sizes(64), dyn=BATCH_DYN, ci=True,
     ci_variants=("13-dynamic",))
def vit():
    return tvm.VisionTransformer(image_size=64, patch_size=16, num_layers=2,
                                 num_heads=4, hidden_dim=128, mlp_dim=256,
                                 num_classes=NC)


# MaxViT: 64 px, partition 4, two stages of one block.
@cls("maxvit", sizes=img_sizes(64), dyn=BATCH_DYN)
def maxvit():
    return tvm.MaxVit(input_size=(64, 64), stem_channels=32, partition_size=4,
                      block_channels=[32, 64], block_layers=[1, 1],
                      head_dim=16, stochastic_depth_prob=0.0, num_classes=NC)


# ---- detection ----------------------------------------------------------------
#
# torchvision's detectors end in data-dependent post-processing (score
# thresholds, top-k, NMS) whose box count depends on the last bits of the
# scores. The zoo compares the raw head outputs (class logits and box
# regressions per anchor, for every feature level) of the normalized image:
# deterministic, dense and exactly what the exported network computes.
# Faster R-CNN is also run whole (fasterrcnn_full), post-processing included.


def _register_roi_align_opset16():
    """torchvision 0.14 (Debian 12's) registers roi_align's ONNX symbolic for
    opset 11 only, so an export at opset >= 16 gets a RoiAlign-16 without
    coordinate_transformation_mode: ONNX's default, half_pixel, then applies
    where torch computed aligned=False (output_half_pixel), and ONNX Runtime
    and torch disagree by whole pixels (fasterrcnn_full/maskrcnn_full at
    opset 17: boxes off by up to 116). This is the opset-16 symbolic that
    later torchvision releases have: the same node with the mode torch
    used."""
    from torch.onnx import register_custom_op_symbolic
    from torch.onnx.symbolic_helper import parse_args
    from torch.onnx.symbolic_opset11 import select, squeeze

    @parse_args("v", "v", "f", "i", "i", "i", "i")
    def roi_align16(g, x, rois, spatial_scale, height, width, sampling_ratio, aligned):
        index = g.op("Constant", value_t=torch.tensor([0], dtype=torch.long))
        batch = g.op("Cast", squeeze(g, select(g, rois, 1, index), 1), to_i=7)
        coords = g.op("Constant", value_t=torch.tensor([1, 2, 3, 4], dtype=torch.long))
        return g.op("RoiAlign", x, select(g, rois, 1, coords), batch,
                    spatial_scale_f=spatial_scale, output_height_i=height,
                    output_width_i=width, sampling_ratio_i=max(sampling_ratio, 0),
                    coordinate_transformation_mode_s=(
                        "half_pixel" if aligned else "output_half_pixel"))

    register_custom_op_symbolic("torchvision::roi_align", roi_align16, 16)


_register_roi_align_opset16()

def small_resnet():
    """ResNet with one basic block per stage ("ResNet-10")."""
    return tvm.resnet.ResNet(tvm.resnet.BasicBlock, [1, 1, 1, 1])


def small_fpn(extra):
    from torchvision.models.detection.backbone_utils import BackboneWithFPN
    return BackboneWithFPN(small_resnet(),
                           {"layer2": "0", "layer3": "1", "layer4": "2"},
                           [128, 256, 512], 64, extra_blocks=extra)


class RawHead(nn.Module):
    """normalize -> backbone -> head; returns the head's tensors."""

    def __init__(self, det, keys, backbone=None, head=None, mean=None,
                 std=None):
        super().__init__()
        self.backbone = backbone if backbone is not None else det.backbone
        self.head = head if head is not None else det.head
        t = det.transform if det is not None else None
        mean = mean if mean is not None else t.image_mean
        std = std if std is not None else t.image_std
        self.register_buffer("mean", torch.tensor(mean).view(1, -1, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, -1, 1, 1))
        self.keys = keys

    def forward(self, x):
        x = (x - self.mean) / self.std
        feats = self.backbone(x)
        feats = list(feats.values()) if isinstance(feats, dict) else [feats]
        out = self.head(feats)
        return tuple(out[k] for k in self.keys)


DET_DYN = {"input": {0: "batch", 2: "height", 3: "width"},
           "cls_logits": {0: "batch", 1: "anchors"},
           "bbox_regression": {0: "batch", 1: "anchors"}}


def det(name, sizes, outputs=("cls_logits", "bbox_regression"), dyn=None,
        **kw):
    dyn = dyn or {"input": {0: "batch", 2: "height", 3: "width"},
                  **{o: {0: "batch", 1: "anchors"} for o in outputs}}
    return zoo_model(name, "detection", inputs=image_inputs(), sizes=sizes,
                     input_names=["input"], output_names=list(outputs),
                     dynamic_axes=dyn, **kw)


@det("ssdlite320_mobilenet_v3", img_sizes(128, h2=160, w2=160), ci=True)
def ssdlite320_mobilenet_v3():
    m = tvd.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                          num_classes=21)
    return RawHead(m, ["cls_logits", "bbox_regression"])


# SSD300 on VGG-11 instead of VGG-16 (the same extractor and extra layers;
# VGG-16 alone is 60 MB). Its extra layers need about 260 px or more.
# Logits up to ~90 from 1024-wide reductions over a VGG trunk: fp32
# summation order alone moves them by ~5e-6 relative (ORT differs from
# torch by 1.5e-4 absolute), so atol 1e-3.
@det("ssd300_vgg", img_sizes(300),
     dyn={"input": {0: "batch"}, "cls_logits": {0: "batch"},
          "bbox_regression": {0: "batch"}}, atol=1e-3)
def ssd300_vgg():
    from torchvision.models.detection import _utils as det_utils
    from torchvision.models.detection.anchor_utils import DefaultBoxGenerator
    from torchvision.models.detection.ssd import SSDHead, _vgg_extractor
    extractor = _vgg_extractor(tvm.vgg11(), False, 5)
    anchors = DefaultBoxGenerator(
        [[2], [2, 3], [2, 3], [2, 3], [2], [2]],
        scales=[0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05],
        steps=[8, 16, 32, 64, 100, 300])
    channels = det_utils.retrieve_out_channels(extractor, (300, 300))
    head = SSDHead(channels, anchors.num_anchors_per_location(), 21)
    return RawHead(None, ["cls_logits", "bbox_regression"],
                   backbone=extractor, head=head,
                   mean=[0.48235, 0.45882, 0.40784],
                   std=[1.0 / 255.0] * 3)


# RetinaNet and FCOS on a ResNet-10 FPN of width 64 (P3-P7).
@det("retinanet", img_sizes(128, h2=96, w2=128))
def retinanet():
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7
    m = tvd.RetinaNet(small_fpn(LastLevelP6P7(64, 64)), num_classes=21)
    return RawHead(m, ["cls_logits", "bbox_regression"])


@det("fcos", img_sizes(128, h2=96, w2=128),
     outputs=("cls_logits", "bbox_regression", "bbox_ctrness"), ci=True,
     ci_variants=("13-static",))
def fcos():
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7
    m = tvd.FCOS(small_fpn(LastLevelP6P7(64, 64)), num_classes=21)
    return RawHead(m, ["cls_logits", "bbox_regression", "bbox_ctrness"])


class RPNRaw(nn.Module):
    """Faster R-CNN's backbone + FPN + RPN head: objectness and box deltas
    per level."""

    def __init__(self, m):
        super().__init__()
        self.backbone = m.backbone
        self.rpn_head = m.rpn.head
        t = m.transform
        self.register_buffer("mean",
                             torch.tensor(t.image_mean).view(1, -1, 1, 1))
        self.register_buffer("std",
                             torch.tensor(t.image_std).view(1, -1, 1, 1))

    def forward(self, x):
        feats = list(self.backbone((x - self.mean) / self.std).values())
        objectness, deltas = self.rpn_head(feats)
        return tuple(objectness) + tuple(deltas)


def rpn_anchors():
    """One anchor size per level of small_fpn(None) (P3-P5 and a pool)."""
    from torchvision.models.detection.anchor_utils import AnchorGenerator
    return AnchorGenerator(((16,), (32,), (64,), (128,)),
                           ((0.5, 1.0, 2.0),) * 4)


def faster_rcnn(**kw):
    return tvd.FasterRCNN(small_fpn(None), num_classes=3, min_size=128,
                          max_size=128, rpn_anchor_generator=rpn_anchors(),
                          rpn_pre_nms_top_n_test=200,
                          rpn_post_nms_top_n_test=50, **kw)


RPN_OUT = ["objectness_%d" % i for i in range(4)] + \
    ["deltas_%d" % i for i in range(4)]


@det("fasterrcnn_rpn", img_sizes(128, h2=96, w2=128), outputs=RPN_OUT,
     dyn={"input": {0: "batch", 2: "height", 3: "width"},
          **{o: {0: "batch", 2: "h", 3: "w"} for o in RPN_OUT}})
def fasterrcnn_rpn():
    return RPNRaw(faster_rcnn())


class Detector(nn.Module):
    """A torchvision detector on one image: boxes, labels, scores."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        out = self.m([x[0]])[0]
        return out["boxes"], out["labels"], out["scores"]


# The whole Faster R-CNN (transform, RPN, NMS, RoIAlign, box head, post-
# processing) on one 128x128 image. Three classes and a score threshold of
# 0.01 keep its random-weight detections from being empty; its box count
# depends on NMS decisions, so a mismatch here is worth a look at ORT's
# column before blaming onnxc.
@det("fasterrcnn_full", [dict(n=1, h=128, w=128), dict(n=1, h=112, w=128)],
     outputs=("boxes", "labels", "scores"),
     dyn={"input": {2: "height", 3: "width"}, "boxes": {0: "n"},
          "labels": {0: "n"}, "scores": {0: "n"}}, atol=1e-3)
def fasterrcnn_full():
    return Detector(faster_rcnn(box_score_thresh=0.01))


# ---- segmentation -------------------------------------------------------------

class SegOut(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


SEG_SIZES = [dict(n=1, h=128, w=128), dict(n=2, h=96, w=128)]
SEG_DYN = {"input": {0: "batch", 2: "height", 3: "width"},
           "output": {0: "batch", 2: "height", 3: "width"}}


def seg(name, **kw):
    return zoo_model(name, "segmentation", inputs=image_inputs(),
                     sizes=SEG_SIZES, input_names=["input"],
                     output_names=["output"], dynamic_axes=SEG_DYN, **kw)


# FCN's head on a ResNet-10 trunk (torchvision's FCN is ResNet-50/101).
@seg("fcn_resnet", ci=True, ci_variants=("17-dynamic",))
def fcn_resnet():
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation.fcn import FCN, FCNHead
    body = IntermediateLayerGetter(small_resnet(), {"layer4": "out"})
    return SegOut(FCN(body, FCNHead(512, 21)))


@seg("deeplabv3_mobilenet_v3")
def deeplabv3_mobilenet_v3():
    return SegOut(tvs.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=21, aux_loss=False))


# DeepLabV3 on a dilated ResNet with one bottleneck per stage.
@seg("deeplabv3_resnet")
def deeplabv3_resnet():
    from torchvision.models.segmentation.deeplabv3 import _deeplabv3_resnet
    backbone = tvm.resnet.ResNet(tvm.resnet.Bottleneck, [1, 1, 1, 1],
                                 replace_stride_with_dilation=[False, True,
                                                               True])
    return SegOut(_deeplabv3_resnet(backbone, 21, False))


@seg("lraspp_mobilenet_v3", ci=True, ci_variants=("13-static",))
def lraspp_mobilenet_v3():
    return SegOut(tvs.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=21))


# ---- video ----------------------------------------------------------------------

def clip_inputs(s):
    return (torch.randn(s["n"], 3, s["t"], s["h"], s["w"]),)


CLIP = [dict(n=1, t=4, h=64, w=64), dict(n=2, t=8, h=48, w=64)]
CLIP_DYN = {"input": {0: "batch", 2: "time", 3: "height", 4: "width"},
            "output": {0: "batch"}}


def vid(name, sizes=CLIP, **kw):
    return zoo_model(name, "video", inputs=clip_inputs, sizes=sizes,
                     input_names=["input"], output_names=["output"],
                     dynamic_axes=CLIP_DYN, **kw)


# The 18-layer video ResNets with one block per stage (10 layers).
@vid("r3d", ci=True, ci_variants=("17-dynamic",))
def r3d():
    return tvv.VideoResNet(tvv.resnet.BasicBlock,
                           [tvv.resnet.Conv3DSimple] * 4, [1, 1, 1, 1],
                           tvv.resnet.BasicStem, num_classes=NC)


@vid("mc3")
def mc3():
    return tvv.VideoResNet(tvv.resnet.BasicBlock,
                           [tvv.resnet.Conv3DSimple] +
                           [tvv.resnet.Conv3DNoTemporal] * 3,
                           [1, 1, 1, 1], tvv.resnet.BasicStem,
                           num_classes=NC)


@vid("r2plus1d")
def r2plus1d():
    return tvv.VideoResNet(tvv.resnet.BasicBlock,
                           [tvv.resnet.Conv2Plus1D] * 4, [1, 1, 1, 1],
                           tvv.resnet.R2Plus1dStem, num_classes=NC)


# S3D ends in a fixed AvgPool3d((2, 7, 7)) that needs 16x224x224 clips; a
# global average pool takes its place so that it runs on 8x64x64 clips.
@vid("s3d", sizes=[dict(n=1, t=8, h=64, w=64), dict(n=2, t=16, h=64, w=96)])
def s3d():
    m = tvv.s3d(num_classes=NC)
    m.avgpool = nn.AdaptiveAvgPool3d(1)
    return m


# ---- optical flow ---------------------------------------------------------------
#
# RAFT samples its correlation pyramid with grid_sample, which the exporter
# writes as GridSample (opset 16): no opset-13 variants. Its coordinate
# grids come from Python ints, so only the batch is dynamic. 128x128 images:
# at 64x64 the last pyramid level is 1 pixel wide and RAFT's coordinate
# normalisation divides by w - 1 = 0 (NaN in torch and ORT alike).

def corr_volume(self, fmap1, fmap2):
    """RAFT's CorrBlock._compute_corr_volume, scaled by a Python float: the
    original divides by torch.sqrt(torch.tensor(C)), which the exporter
    writes as Sqrt of an int64 when the shape is dynamic (an invalid
    model)."""
    import math
    n, c, h, w = fmap1.shape
    corr = torch.matmul(fmap1.view(n, c, h * w).transpose(1, 2),
                        fmap2.view(n, c, h * w))
    return corr.view(n, h, w, 1, h, w) / math.sqrt(c)


class RAFTFlow(nn.Module):
    def __init__(self, m, updates):
        super().__init__()
        import types
        m.corr_block._compute_corr_volume = types.MethodType(corr_volume,
                                                             m.corr_block)
        self.m, self.updates = m, updates

    def forward(self, image1, image2):
        return self.m(image1, image2, num_flow_updates=self.updates)[-1]


def flow_inputs(s):
    return (torch.rand(s["n"], 3, s["h"], s["w"]) * 2 - 1,
            torch.rand(s["n"], 3, s["h"], s["w"]) * 2 - 1)


FLOW_SIZES = [dict(n=1, h=128, w=128), dict(n=2, h=128, w=128)]
FLOW_DYN = {"image1": {0: "batch"}, "image2": {0: "batch"},
            "flow": {0: "batch"}}


@zoo_model("raft_small", "flow", inputs=flow_inputs, sizes=FLOW_SIZES,
           input_names=["image1", "image2"], output_names=["flow"],
           dynamic_axes=FLOW_DYN, opsets=(17,), ci=True, atol=1e-3,
           note="GridSample needs opset 16: no opset-13 variants")
def raft_small():
    return RAFTFlow(tvf.raft_small(weights=None), 2)


@zoo_model("raft_large", "flow", inputs=flow_inputs, sizes=FLOW_SIZES,
           input_names=["image1", "image2"], output_names=["flow"],
           dynamic_axes=FLOW_DYN, opsets=(17,), atol=1e-3,
           note="GridSample needs opset 16: no opset-13 variants")
def raft_large():
    return RAFTFlow(tvf.raft_large(weights=None), 2)


# ---- image-to-image and generative networks (written in torch) ---------------

def other(name, sizes=IMG, dyn=None, inputs=None, **kw):
    dyn = dyn or {"input": {0: "batch", 2: "height", 3: "width"},
                  "output": {0: "batch", 2: "height", 3: "width"}}
    return zoo_model(name, "vision-other", inputs=inputs or image_inputs(),
                     sizes=sizes, input_names=["input"],
                     output_names=["output"], dynamic_axes=dyn, **kw)


def conv_bn_relu(cin, cout, k=3, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """A 3-level U-Net: max-pool down, transposed-conv up, skip concats."""

    def __init__(self, cin=3, cout=2, w=16):
        super().__init__()
        self.d1 = nn.Sequential(conv_bn_relu(cin, w), conv_bn_relu(w, w))
        self.d2 = nn.Sequential(conv_bn_relu(w, 2 * w),
                                conv_bn_relu(2 * w, 2 * w))
        self.d3 = nn.Sequential(conv_bn_relu(2 * w, 4 * w),
                                conv_bn_relu(4 * w, 4 * w))
        self.u2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, 2)
        self.c2 = nn.Sequential(conv_bn_relu(4 * w, 2 * w),
                                conv_bn_relu(2 * w, 2 * w))
        self.u1 = nn.ConvTranspose2d(2 * w, w, 2, 2)
        self.c1 = nn.Sequential(conv_bn_relu(2 * w, w), conv_bn_relu(w, w))
        self.out = nn.Conv2d(w, cout, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        c = self.d3(F.max_pool2d(b, 2))
        b = self.c2(torch.cat([self.u2(c), b], 1))
        a = self.c1(torch.cat([self.u1(b), a], 1))
        return self.out(a)


@other("unet", ci=True, ci_variants=("17-dynamic",))
def unet():
    return UNet()


class ESPCN(nn.Module):
    """Sub-pixel super-resolution x3 (PixelShuffle -> DepthToSpace)."""

    def __init__(self, scale=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 64, 5, padding=2), nn.Tanh(),
                                  nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(32, scale * scale, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        return torch.sigmoid(self.shuffle(self.body(x)))


@other("espcn", inputs=image_inputs(1))
def espcn():
    return ESPCN()


class DCGANGenerator(nn.Module):
    """DCGAN's generator: z (N, 64, 1, 1) -> a 3x32x32 image."""

    def __init__(self, nz=64, w=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(nz, 4 * w, 4, 1, 0, bias=False),
            nn.BatchNorm2d(4 * w), nn.ReLU(True),
            nn.ConvTranspose2d(4 * w, 2 * w, 4, 2, 1, bias=False),
            nn.BatchNorm2d(2 * w), nn.ReLU(True),
            nn.ConvTranspose2d(2 * w, w, 4, 2, 1, bias=False),
            nn.BatchNorm2d(w), nn.ReLU(True),
            nn.ConvTranspose2d(w, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.net(z)


@zoo_model("dcgan_generator", "vision-other",
           inputs=lambda s: (torch.randn(s["n"], 64, 1, 1),),
           sizes=[dict(n=1), dict(n=3)], input_names=["z"],
           output_names=["image"],
           dynamic_axes={"z": {0: "batch"}, "image": {0: "batch"}})
def dcgan_generator():
    return DCGANGenerator()


class StyleNet(nn.Module):
    """Johnson et al.'s fast style transfer network (reflection padding,
    instance norm, residual blocks, nearest upsampling)."""

    def __init__(self, w=16):
        super().__init__()

        def conv(cin, cout, k, s=1):
            return nn.Sequential(nn.ReflectionPad2d(k // 2),
                                 nn.Conv2d(cin, cout, k, s),
                                 nn.InstanceNorm2d(cout, affine=True))
        self.down = nn.Sequential(conv(3, w, 9), nn.ReLU(),
                                  conv(w, 2 * w, 3, 2), nn.ReLU(),
                                  conv(2 * w, 4 * w, 3, 2), nn.ReLU())
        self.res = nn.ModuleList(
            [nn.Sequential(conv(4 * w, 4 * w, 3), nn.ReLU(),
                           conv(4 * w, 4 * w, 3)) for _ in range(2)])
        self.up1 = conv(4 * w, 2 * w, 3)
        self.up2 = conv(2 * w, w, 3)
        self.out = nn.Sequential(nn.ReflectionPad2d(4), nn.Conv2d(w, 3, 9))

    def forward(self, x):
        y = self.down(x)
        for r in self.res:
            y = y + r(y)
        y = F.relu(self.up1(F.interpolate(y, scale_factor=2.0,
                                          mode="nearest")))
        y = F.relu(self.up2(F.interpolate(y, scale_factor=2.0,
                                          mode="nearest")))
        return self.out(y)


@other("style_transfer")
def style_transfer():
    return StyleNet()


class TinyYOLO(nn.Module):
    """A YOLO-style detector: a CSP-ish conv trunk, two detection scales,
    anchor-free box decoding into (N, boxes, 4 + 1 + classes) in the graph
    (sigmoid, grid offsets, exp sizes)."""

    def __init__(self, nc=4):
        super().__init__()
        self.nc = nc
        self.stem = nn.Sequential(conv_bn_relu(3, 16, 3, 2),
                                  conv_bn_relu(16, 32, 3, 2))
        self.s1 = nn.Sequential(conv_bn_relu(32, 64, 3, 2),
                                conv_bn_relu(64, 64))
        self.s2 = nn.Sequential(conv_bn_relu(64, 128, 3, 2),
                                conv_bn_relu(128, 128))
        self.h1 = nn.Conv2d(64, 5 + nc, 1)
        self.h2 = nn.Conv2d(128, 5 + nc, 1)

    def decode(self, p, stride):
        n, c, h, w = p.shape
        p = p.permute(0, 2, 3, 1)
        ys = torch.arange(h, dtype=torch.float32).view(1, h, 1, 1)
        xs = torch.arange(w, dtype=torch.float32).view(1, 1, w, 1)
        cx = (torch.sigmoid(p[..., 0:1]) + xs) * stride
        cy = (torch.sigmoid(p[..., 1:2]) + ys) * stride
        wh = torch.exp(p[..., 2:4].clamp(max=4.0)) * stride
        rest = torch.sigmoid(p[..., 4:])
        return torch.cat([cx, cy, wh, rest], -1).reshape(n, -1, c)

    def forward(self, x):
        a = self.s1(self.stem(x))
        b = self.s2(a)
        return torch.cat([self.decode(self.h1(a), 8),
                          self.decode(self.h2(b), 16)], 1)


@zoo_model("yolo_tiny", "detection", inputs=image_inputs(),
           sizes=[dict(n=1, h=128, w=128), dict(n=2, h=96, w=128)],
           input_names=["input"], output_names=["detections"],
           dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"},
                         "detections": {0: "batch", 1: "boxes"}},
           atol=1e-3, ci=True, ci_variants=("17-dynamic",))
def yolo_tiny():
    return TinyYOLO()


class DETR(nn.Module):
    """DETR: a ResNet-10 trunk, a transformer encoder over the feature map
    with sine position embeddings, a decoder of learned object queries;
    class logits and sigmoid boxes per query."""

    def __init__(self, d=64, queries=16, nc=5):
        super().__init__()
        trunk = small_resnet()
        self.body = nn.Sequential(*list(trunk.children())[:-2])
        self.proj = nn.Conv2d(512, d, 1)
        self.transformer = nn.Transformer(d, 4, 2, 2, 128, dropout=0.0,
                                          batch_first=True)
        self.queries = nn.Parameter(torch.randn(1, queries, d))
        self.cls = nn.Linear(d, nc + 1)
        self.box = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 4))
        self.d = d

    def pos(self, h, w):
        y = torch.arange(h, dtype=torch.float32).view(h, 1).expand(h, w)
        x = torch.arange(w, dtype=torch.float32).view(1, w).expand(h, w)
        i = torch.arange(self.d // 4, dtype=torch.float32)
        f = 1.0 / (10000 ** (i / (self.d // 4)))
        py = y.reshape(-1, 1) * f
        px = x.reshape(-1, 1) * f
        return torch.cat([py.sin(), py.cos(), px.sin(), px.cos()], 1)

    def forward(self, x):
        f = self.proj(self.body(x))
        n, c, h, w = f.shape
        src = f.flatten(2).transpose(1, 2) + self.pos(h, w)
        tgt = self.queries.expand(n, -1, -1)
        hs = self.transformer(src, tgt)
        return self.cls(hs), torch.sigmoid(self.box(hs))


@zoo_model("detr", "detection", inputs=image_inputs(),
           sizes=[dict(n=1, h=128, w=128), dict(n=2, h=96, w=128)],
           input_names=["input"], output_names=["logits", "boxes"],
           dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"},
                         "logits": {0: "batch"}, "boxes": {0: "batch"}})
def detr():
    return DETR()


# ---- small classics ---------------------------------------------------------------

class LeNet5(nn.Module):
    """LeNet-5 on 1x28x28 digits (tanh, average pooling)."""

    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.Tanh(),
                               nn.AvgPool2d(2), nn.Conv2d(6, 16, 5),
                               nn.Tanh(), nn.AvgPool2d(2))
        self.c = nn.Sequential(nn.Linear(400, 120), nn.Tanh(),
                               nn.Linear(120, 84), nn.Tanh(),
                               nn.Linear(84, 10))

    def forward(self, x):
        return self.c(torch.flatten(self.f(x), 1))


@cls("lenet5", sizes=[dict(n=1, h=28, w=28), dict(n=5, h=28, w=28)],
     dyn=BATCH_DYN, inputs=image_inputs(1))
def lenet5():
    return LeNet5()


class VAE(nn.Module):
    """A convolutional VAE: encoder to (mu, logvar), reparameterisation with
    the noise as an input, transposed-conv decoder."""

    def __init__(self, z=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                                 nn.Conv2d(16, 32, 4, 2, 1),
                                 nn.LeakyReLU(0.2), nn.Flatten())
        self.mu = nn.Linear(32 * 7 * 7, z)
        self.logvar = nn.Linear(32 * 7 * 7, z)
        self.fc = nn.Linear(z, 32 * 7 * 7)
        self.dec = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1),
                                 nn.ReLU(), nn.ConvTranspose2d(16, 1, 4, 2, 1),
                                 nn.Sigmoid())

    def forward(self, x, eps):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + eps * torch.exp(0.5 * logvar)
        return self.dec(self.fc(z).view(-1, 32, 7, 7)), mu, logvar


@zoo_model("vae", "vision-other",
           inputs=lambda s: (torch.rand(s["n"], 1, 28, 28),
                             torch.randn(s["n"], 16)),
           sizes=[dict(n=1), dict(n=4)], input_names=["image", "eps"],
           output_names=["recon", "mu", "logvar"],
           dynamic_axes={k: {0: "batch"} for k in
                         ("image", "eps", "recon", "mu", "logvar")})
def vae():
    return VAE()


# Mask R-CNN whole, like fasterrcnn_full (masks pasted into the image).
@det("maskrcnn_full", [dict(n=1, h=128, w=128), dict(n=1, h=112, w=128)],
     outputs=("boxes", "labels", "scores", "masks"),
     dyn={"input": {2: "height", 3: "width"}, "boxes": {0: "n"},
          "labels": {0: "n"}, "scores": {0: "n"},
          "masks": {0: "n", 2: "height", 3: "width"}}, atol=1e-3)
def maskrcnn_full():
    m = tvd.MaskRCNN(small_fpn(None), num_classes=3, min_size=128,
                     max_size=128, rpn_anchor_generator=rpn_anchors(),
                     rpn_pre_nms_top_n_test=200,
                     rpn_post_nms_top_n_test=50, box_score_thresh=0.01,
                     box_detections_per_img=20)
    return MaskDetector(m)


class MaskDetector(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        out = self.m([x[0]])[0]
        return out["boxes"], out["labels"], out["scores"], out["masks"]
