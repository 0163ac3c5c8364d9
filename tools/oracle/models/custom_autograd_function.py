# Custom torch.autograd.Function: Exp with save_for_backward, a straight-through estimator,
# MyReLU with a mask, gradcheck in float64.
import torch


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = Exp.apply(x)
y
y.grad_fn.name()
y.sum().backward()
x.grad


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


_ = torch.manual_seed(0)
a = torch.randn(2, 3, requires_grad=True)
r = MyReLU.apply(a)
r.backward(torch.ones_like(r))
ga = a.grad


class RoundSTE(torch.autograd.Function):
    """Rounds in the forward pass; passes the gradient straight through."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return torch.round(x * scale) / scale

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None


w = torch.tensor([0.123, -0.456, 0.789], requires_grad=True)
q = RoundSTE.apply(w, 10)
q
(q * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
w.grad

inp = torch.randn(4, dtype=torch.double, requires_grad=True)
torch.autograd.gradcheck(Exp.apply, (inp,), eps=1e-6, atol=1e-4)


class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


bad = Bad.apply(torch.ones(2, requires_grad=True))
bad.sum().backward()
