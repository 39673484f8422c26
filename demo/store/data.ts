// The store's in-memory data. A real legacy API would have a database here; the shapes are what matter.

export type Category = 'beans' | 'grinders' | 'brewers' | 'accessories';
export const CATEGORIES: readonly Category[] = ['beans', 'grinders', 'brewers', 'accessories'];

export interface Product {
  id: string;
  name: string;
  category: Category;
  price: number;
  stock: number;
}

export interface Customer {
  id: string;
  name: string;
  email: string;
  tier: 'standard' | 'gold';
}

export interface OrderLine {
  productId: string;
  quantity: number;
}

export interface Order {
  id: string;
  customerId: string;
  lines: OrderLine[];
  total: number;
  status: 'placed' | 'shipped' | 'cancelled';
  createdAt: string;
}

/** One store's data; each app gets its own, so tests never share state. */
export interface Store {
  products: Map<string, Product>;
  customers: Map<string, Customer>;
  orders: Map<string, Order>;
  nextOrderId(): string;
}

export function createStore(): Store {
  const products: Product[] = [
    { id: 'p1', name: 'Espresso beans, 1 kg', category: 'beans', price: 24.5, stock: 40 },
    { id: 'p2', name: 'Filter roast, 250 g', category: 'beans', price: 9.9, stock: 3 },
    { id: 'p3', name: 'Burr grinder', category: 'grinders', price: 189, stock: 6 },
    { id: 'p4', name: 'Hand grinder', category: 'grinders', price: 79, stock: 0 },
    { id: 'p5', name: 'Pour-over dripper', category: 'brewers', price: 22, stock: 15 },
    { id: 'p6', name: 'French press', category: 'brewers', price: 35, stock: 9 },
    { id: 'p7', name: 'Espresso machine', category: 'brewers', price: 649, stock: 2 },
    { id: 'p8', name: 'Milk jug', category: 'accessories', price: 12, stock: 25 },
    { id: 'p9', name: 'Tamper', category: 'accessories', price: 29, stock: 0 },
    { id: 'p10', name: 'Scale with timer', category: 'accessories', price: 45, stock: 11 },
  ];
  const customers: Customer[] = [
    { id: 'c1', name: 'Ada Lovelace', email: 'ada@example.com', tier: 'gold' },
    { id: 'c2', name: 'Linus Pauling', email: 'linus@example.com', tier: 'standard' },
    { id: 'c3', name: 'Grace Hopper', email: 'grace@example.com', tier: 'gold' },
  ];
  const orders: Order[] = [
    {
      id: 'o1001',
      customerId: 'c1',
      lines: [{ productId: 'p1', quantity: 2 }],
      total: 49,
      status: 'shipped',
      createdAt: '2026-11-02T09:15:00.000Z',
    },
    {
      id: 'o1002',
      customerId: 'c3',
      lines: [
        { productId: 'p3', quantity: 1 },
        { productId: 'p8', quantity: 1 },
      ],
      total: 201,
      status: 'placed',
      createdAt: '2026-11-20T16:40:00.000Z',
    },
  ];
  let next = 1003;
  return {
    products: new Map(products.map((product) => [product.id, product])),
    customers: new Map(customers.map((customer) => [customer.id, customer])),
    orders: new Map(orders.map((order) => [order.id, order])),
    nextOrderId: () => `o${next++}`,
  };
}
