"""Go, Rust, C, C++ and Java golden cases."""

from . import Case, src

CASES = [
    Case("go function body", "go",
         src("""
             func add(a, b int) int {
             \t█
             }
             """),
         "return a + b\n}\n\nfunc sub(a, b int) int {", "return a + b", plan="empty_block"),
    Case("go single line", "go",
         src("""
             func main() {
             \tx := 1
             \t█
             }
             """),
         "fmt.Println(x)\n}", "fmt.Println(x)", plan="single_line"),
    Case("go spaces in the candidate become tabs", "go",
         "func f() {█\n}\n", "\n    if ok {\n        run()\n    }", "\n\tif ok {\n\t\trun()\n\t}",
         rules=("indent_chars",)),
    Case("go broken candidate rejected", "go",
         "func f() int {\n\treturn █\n}\n", "1 +", None),
    Case("go if block after opener line", "go",
         "func f(err error) {\n\tif err != nil {█\n\t}\n}\n",
         "\n\t\treturn\n\t}\n}", "\n\t\treturn", plan="empty_block"),
    Case("rust function body", "rust",
         "fn main() {█}\n", "\n    let x = 1;\n    println!(\"{}\", x);\n}\n\nfn other() {}",
         "\n    let x = 1;\n    println!(\"{}\", x);\n", plan="empty_block"),
    Case("rust lifetimes are not quotes", "rust",
         "fn first<'a>(v: &'a [i32]) -> &'a i32 {█}\n", "\n    &v[0]\n}", "\n    &v[0]\n"),
    Case("rust auto-closed call", "rust",
         "fn main() {\n    let v = vec![█];\n}\n", "1, 2, 3];", "1, 2, 3", rules=("auto_closed",)),
    Case("rust match arms stay inside the match", "rust",
         src("""
             fn name(n: u8) -> &'static str {
                 match n {
                     █
                 }
             }
             """),
         "0 => \"zero\",\n        _ => \"many\",\n    }\n}", "0 => \"zero\",\n        _ => \"many\",",
         plan="empty_block"),
    Case("rust bad candidate rejected", "rust",
         "fn f() -> i32 {\n    █\n}\n", "let = 5;", None),
    Case("c function body", "c",
         "int max(int a, int b) {█}\n", "\n    return a > b ? a : b;\n}\n\nint min(int a, int b) {",
         "\n    return a > b ? a : b;\n", plan="empty_block"),
    Case("c statement single line with auto-closed paren", "c",
         "int main(void) {\n    printf(█);\n}\n", "\"%d\\n\", x);", "\"%d\\n\", x",
         rules=("auto_closed",)),
    Case("c unbalanced candidate balanced", "c",
         "int main(void) {\n    int y = █\n}\n", "f(g(1);", "f(g(1));", rules=("balance_brackets",)),
    Case("c header by extension", "",
         "struct point {█};\n", "\n    int x;\n    int y;\n};", "\n    int x;\n    int y;\n",
         uri="file:///inc/point.h"),
    Case("cpp class body", "cpp",
         "class Stack {█};\n", "\n public:\n  void push(int v);\n};", "\n public:\n  void push(int v);\n",
         plan="empty_block"),
    Case("cpp loop body stops at its brace", "cpp",
         src("""
             int sum(const std::vector<int>& v) {
               int s = 0;
               for (int x : v) {
                 █
               }
               return s;
             }
             """),
         "s += x;\n  }\n  return s;\n}", "s += x;"),
    Case("a lone brace above code would take its block's own closer", "c",
         src("""
             int total(int *items, int count) {
                 int sum = 0;
                 for (int i = 0; i < count; i++) {
                     if (items[i] > 2) {
             █            sum += items[i] * i;
                     }
                 }
                 return sum;
             }
             """), "{", None),
    Case("cpp syntax error rejected", "cpp",
         "int main() {\n  auto x = █;\n}\n", "std::vector<int>>{}", None),
    Case("java method body", "java",
         src("""
             class A {
                 int twice(int x) {
                     █
                 }
             }
             """),
         "return 2 * x;\n    }\n\n    int thrice(int x) {", "return 2 * x;", plan="empty_block"),
    Case("java try block keeps catch", "java",
         src("""
             class A {
                 void run() {
                     try {█
             """),
         "\n            work();\n        } catch (Exception e) {\n            log(e);\n        }\n    }",
         "\n            work();\n        } catch (Exception e) {", plan="after_block_opener"),
    Case("java auto-closed string and paren", "java",
         "class A { void f() { System.out.println(\"hi █\"); } }\n", "there\");", "there",
         plan="in_string", rules=("auto_closed",)),
    Case("java bad candidate rejected", "java",
         "class A { int f() { return █; } }\n", "new;", None),
]
