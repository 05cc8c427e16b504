"""Small valid files per grammar language, for window and plan tests."""

PYTHON = '''import os


class Store:
    """Keeps items."""

    def __init__(self, name, size=3):
        self.name = name
        self.items = [n * 2 for n in range(size)]

    def total(self, scale=1):
        total = 0
        for index, item in enumerate(self.items):
            if item > 2:
                total += item * index
            elif item < 0:
                continue
            else:
                total -= 1
        try:
            return total * scale
        except TypeError:
            return None


def helper(path, mode="r"):
    with open(path, mode) as handle:
        data = handle.read().split(os.sep)
    return [d.strip() for d in data if d]
'''

JAVASCRIPT = '''const fs = require('fs');

class Store {
  constructor(name) {
    this.name = name;
    this.items = [1, 2, 3].map((n) => n * 2);
  }

  total(scale = 1) {
    let total = 0;
    for (const [i, item] of this.items.entries()) {
      if (item > 2) {
        total += item * i;
      } else {
        total -= 1;
      }
    }
    return total * scale;
  }
}

function helper(path) {
  const data = fs.readFileSync(path, 'utf8');
  return data.split('\\n').filter((d) => d.trim());
}
'''

TYPESCRIPT = '''interface User {
  id: number;
  name: string;
}

export class Registry<T extends User> {
  private users: Map<number, T> = new Map();

  add(user: T): void {
    if (this.users.has(user.id)) {
      throw new Error(`duplicate ${user.id}`);
    }
    this.users.set(user.id, user);
  }
}

export function names(users: User[]): string[] {
  return users.map((u) => u.name);
}
'''

TSX = '''import React from 'react';

export function Hello({ name }: { name: string }) {
  const [count, setCount] = React.useState(0);
  return (
    <div onClick={() => setCount(count + 1)}>
      Hello {name} {count}
    </div>
  );
}
'''

GO = '''package main

import "fmt"

type Store struct {
\tname  string
\titems []int
}

func (s *Store) Total(scale int) int {
\ttotal := 0
\tfor i, item := range s.items {
\t\tif item > 2 {
\t\t\ttotal += item * i
\t\t} else {
\t\t\ttotal--
\t\t}
\t}
\treturn total * scale
}

func main() {
\ts := &Store{name: "a", items: []int{1, 2, 3}}
\tfmt.Println(s.Total(2))
}
'''

RUST = '''use std::collections::HashMap;

struct Store {
    name: String,
    items: Vec<i32>,
}

impl Store {
    fn total(&self, scale: i32) -> i32 {
        let mut total = 0;
        for (i, item) in self.items.iter().enumerate() {
            if *item > 2 {
                total += item * i as i32;
            } else {
                total -= 1;
            }
        }
        total * scale
    }
}

fn main() {
    let mut m: HashMap<&str, i32> = HashMap::new();
    m.insert("a", 1);
    println!("{:?}", m);
}
'''

C = '''#include <stdio.h>

struct store {
    int count;
    int items[8];
};

static int total(const struct store *s, int scale) {
    int sum = 0;
    for (int i = 0; i < s->count; i++) {
        if (s->items[i] > 2) {
            sum += s->items[i] * i;
        } else {
            sum -= 1;
        }
    }
    return sum * scale;
}

int main(void) {
    struct store s = {3, {1, 2, 3}};
    printf("%d\\n", total(&s, 2));
    return 0;
}
'''

CPP = '''#include <vector>

namespace shop {

class Store {
 public:
  explicit Store(int n) : items_(n, 1) {}
  int total(int scale) const {
    int sum = 0;
    for (int x : items_) {
      sum += x * scale;
    }
    return sum;
  }

 private:
  std::vector<int> items_;
};

}  // namespace shop

int main() {
  shop::Store s(3);
  return s.total(2);
}
'''

JAVA = '''import java.util.List;

public class Store {
    private final List<Integer> items;

    public Store(List<Integer> items) {
        this.items = items;
    }

    public int total(int scale) {
        int sum = 0;
        for (int i = 0; i < items.size(); i++) {
            if (items.get(i) > 2) {
                sum += items.get(i) * i;
            } else {
                sum -= 1;
            }
        }
        return sum * scale;
    }
}
'''

SAMPLES = {
    "python": PYTHON, "javascript": JAVASCRIPT, "typescript": TYPESCRIPT, "typescriptreact": TSX, "go": GO,
    "rust": RUST, "c": C, "cpp": CPP, "java": JAVA,
}
