import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.arange(16.).reshape(1, 1, 4, 4)
try:
    F.interpolate(x, size=2, scale_factor=2)
except ValueError as e:
    print(e)
try:
    F.interpolate(x)
except ValueError as e:
    print(e)
try:
    F.interpolate(x, scale_factor=2, align_corners=True)
except ValueError as e:
    print(e)
try:
    F.interpolate(x, scale_factor=2, mode='linear')
except NotImplementedError as e:
    print(e)
try:
    F.interpolate(x[0], scale_factor=2, mode='bilinear')
except NotImplementedError as e:
    print(e)
try:
    F.interpolate(x[0, 0], scale_factor=2)
except NotImplementedError as e:
    print(e)
try:
    F.interpolate(x, size=(2, 3, 4))
except ValueError as e:
    print(e)
try:
    F.interpolate(x, scale_factor=[2, 3, 4])
except ValueError as e:
    print(e)
try:
    F.interpolate(x, size=(2.5, 3))
except TypeError as e:
    print(e)
try:
    F.interpolate(x, size=4, recompute_scale_factor=True)
except ValueError as e:
    print(e)
try:
    F.interpolate(x, scale_factor=2, mode='foo')
except NotImplementedError as e:
    print(e)
try:
    F.interpolate(x, scale_factor=2, antialias=True)
except ValueError as e:
    print(e)
try:
    F.interpolate(x.long(), scale_factor=2, mode='bilinear')
except NotImplementedError as e:
    print(e)
try:
    F.interpolate(x, scale_factor=0.1)
except RuntimeError as e:
    print(e)
try:
    F.interpolate(x[0], scale_factor=0.1, mode='linear')
except RuntimeError as e:
    print(e)
try:
    F.pixel_shuffle(x, 3)
except RuntimeError as e:
    print(e)
try:
    F.pixel_shuffle(x[0, 0], 2)
except RuntimeError as e:
    print(e)
try:
    F.pixel_unshuffle(x, 3)
except RuntimeError as e:
    print(e)
try:
    nn.PixelShuffle(0)(x)
except RuntimeError as e:
    print(e)
try:
    nn.Upsample(scale_factor=2, mode='linear')(x)
except NotImplementedError as e:
    print(e)
F.interpolate(x, scale_factor=2).shape
