a = torch.ones(2, 3)
b = torch.ones(2, 3)
a @ b
a @ b.T
torch.mm(a, b)
a + torch.ones(3, 2)
a + torch.ones(3)
c = a.view(4, 4)
c = a.view(-1, 4)
a.reshape(-1, -1)
torch.cat([a, torch.ones(2, 2)])
torch.cat([a, torch.ones(2, 2)], dim=1)
torch.stack([torch.ones(2), torch.ones(3)])
a.permute(1, 0, 2)
a.transpose(0, 2)
a[2]
a[0, 3]
a.squeeze(2)
a.unsqueeze(3)
