labels = torch.tensor([0, 2, 1, 2])
num_classes = 3
one_hot = torch.zeros(len(labels), num_classes)
one_hot.scatter_(1, labels.unsqueeze(1), 1.0)
one_hot
one_hot.argmax(dim=1)
torch.eye(num_classes)[labels]
idx = labels.view(-1, 1)
torch.zeros(4, 3).scatter(1, idx, 5)
torch.zeros(4, 3).scatter_(1, labels, 1.0)
counts = torch.zeros(3).scatter_add_(0, labels, torch.ones(4))
counts
