// Geometry helpers used by `make demo` (typing is replayed into this file).

class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }

  distanceTo(other) {
    const dx = this.x - other.x;
    const dy = this.y - other.y;
    return Math.sqrt(dx * dx + dy * dy);
  }
}

class Rectangle {
  constructor(origin, width, height) {
    this.origin = origin;
    this.width = width;
    this.height = height;
  }

  area() {
    return this.width * this.height;
  }

  perimeter() {
    return 2 * (this.width + this.height);
  }

  contains(point) {
    return (
      point.x >= this.origin.x &&
      point.x <= this.origin.x + this.width &&
      point.y >= this.origin.y &&
      point.y <= this.origin.y + this.height
    );
  }
}

function largest(shapes) {
  let best = null;
  for (const shape of shapes) {
    if (best === null || shape.area() > best.area()) {
      best = shape;
    }
  }
  return best;
}

module.exports = { Point, Rectangle, largest };
