// C++ fixture for type units (-fdebug-types-section). No #include.
namespace ns {
struct Point { int x, y; };
template <typename T> struct Box { T value; Box *next; };
class Shape {
public:
	virtual ~Shape() {}
	virtual int area() const { return 0; }
	Point origin;
};
}
ns::Box<int> box_int;
ns::Box<ns::Point> box_point;
int area(const ns::Shape &s) { return s.area() + box_int.value + box_point.value.x; }
