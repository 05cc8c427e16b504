"""A small inventory service used by `make demo` (typing is replayed into this file)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0
    tags: list[str] = field(default_factory=list)

    def total_value(self) -> float:
        return self.price * self.quantity


class Inventory:
    def __init__(self) -> None:
        self.items: dict[str, Item] = {}

    def add(self, item: Item) -> None:
        if item.name in self.items:
            self.items[item.name].quantity += item.quantity
        else:
            self.items[item.name] = item

    def remove(self, name: str, quantity: int = 1) -> None:
        item = self.items[name]
        if item.quantity < quantity:
            raise ValueError(f"only {item.quantity} {name} left")
        item.quantity -= quantity
        if item.quantity == 0:
            del self.items[name]

    def total_value(self) -> float:
        return sum(item.total_value() for item in self.items.values())

    def find_by_tag(self, tag: str) -> list[Item]:
        return [item for item in self.items.values() if tag in item.tags]

    def cheapest(self) -> Item | None:
        if not self.items:
            return None
        return min(self.items.values(), key=lambda item: item.price)


def load_inventory(rows: list[dict]) -> Inventory:
    inventory = Inventory()
    for row in rows:
        inventory.add(Item(row["name"], float(row["price"]), int(row.get("quantity", 0))))
    return inventory


if __name__ == "__main__":
    inv = load_inventory([{"name": "apple", "price": 0.5, "quantity": 10}])
    print(inv.total_value())
