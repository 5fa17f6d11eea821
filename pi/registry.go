package pi

// registry holds the meanings of one vocabulary (entry types, message
// roles) by name, and the order they were registered in, which every list
// derived from them keeps.
type registry[T any] struct {
	byName map[string]*T
	order  []string
}

// set adds (or replaces) the meaning of name.
func (r *registry[T]) set(name string, v T) {
	if r.byName == nil {
		r.byName = map[string]*T{}
	}
	if _, ok := r.byName[name]; !ok {
		r.order = append(r.order, name)
	}
	r.byName[name] = &v
}

// get is the meaning of name, if registered.
func (r *registry[T]) get(name string) (*T, bool) {
	v, ok := r.byName[name]
	return v, ok
}

// all lists every meaning, in registration order.
func (r *registry[T]) all() []*T {
	out := make([]*T, len(r.order))
	for i, n := range r.order {
		out[i] = r.byName[n]
	}
	return out
}
