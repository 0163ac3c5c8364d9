# "Learning PyTorch with Examples", PyTorch: nn.
# (200 points instead of the tutorial's 2000, so the learning rate is 10x; fewer iterations.)
import torch
import math

x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)

# For this example, the output y is a linear function of (x, x^2, x^3), so
# we can consider it as a linear layer neural network. Let's prepare the
# tensor (x, x^2, x^3).
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)

# In the above code, x.unsqueeze(-1) has shape (200, 1), and p has shape
# (3,), for this case, broadcasting semantics will apply to obtain a tensor
# of shape (200, 3)
xx.shape

_ = torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
model

loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-5
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, round(loss.item(), 2))

    # Zero the gradients before running the backward pass.
    model.zero_grad()
    loss.backward()

    # Update the weights using gradient descent.
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

# You can access the first layer of `model` like accessing the first item of a list
linear_layer = model[0]

# For linear layer, its parameters are stored as `weight` and `bias`.
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + {linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3')
w = linear_layer.weight
bias = linear_layer.bias
w.grad
