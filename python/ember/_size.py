"""ember.Size: a tensor's shape, a tuple that prints as PyTorch's (ember.Size([2, 5]))."""


class Size(tuple):
    __slots__ = ()

    def __repr__(self):
        return f"ember.Size({list(self)})"

    __str__ = __repr__

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n
