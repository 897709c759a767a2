package nearby

// tree is a k-d tree over the locations' points on the unit sphere, kept
// implicitly: perm[lo:hi] is a subtree whose root is perm[(lo+hi)/2],
// split on axis[(lo+hi)/2], with the smaller coordinates left of it.
type tree struct {
	xyz  []float64
	perm []int32
	axis []uint8
}

func newTree(ls *locations) *tree {
	n := len(ls.lat)
	t := &tree{xyz: ls.xyz, perm: make([]int32, n), axis: make([]uint8, n)}
	for i := range t.perm {
		t.perm[i] = int32(i)
	}
	t.build(0, n)
	return t
}

func (t *tree) coord(p int32, a uint8) float64 { return t.xyz[3*int(p)+int(a)] }

// build splits perm[lo:hi] on its widest axis at the median.
func (t *tree) build(lo, hi int) {
	if hi-lo <= 1 {
		return
	}
	var mn, mx [3]float64
	for a := range 3 {
		mn[a], mx[a] = 2, -2
	}
	for _, p := range t.perm[lo:hi] {
		for a := range 3 {
			c := t.coord(p, uint8(a))
			mn[a], mx[a] = min(mn[a], c), max(mx[a], c)
		}
	}
	ax := uint8(0)
	for a := uint8(1); a < 3; a++ {
		if mx[a]-mn[a] > mx[ax]-mn[ax] {
			ax = a
		}
	}
	m := (lo + hi) / 2
	t.selectNth(lo, hi, m, ax)
	t.axis[m] = ax
	t.build(lo, m)
	t.build(m+1, hi)
}

// selectNth orders perm[lo:hi] so that perm[nth] is the point that sorting
// by axis ax would put there, smaller coordinates before it and larger
// after (three-way partitions: many points share a coordinate).
func (t *tree) selectNth(lo, hi, nth int, ax uint8) {
	for hi-lo > 1 {
		a, b, c := t.coord(t.perm[lo], ax), t.coord(t.perm[(lo+hi)/2], ax), t.coord(t.perm[hi-1], ax)
		pivot := max(min(a, b), min(max(a, b), c)) // the median of three
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := t.coord(t.perm[i], ax); {
			case v < pivot:
				t.perm[lt], t.perm[i] = t.perm[i], t.perm[lt]
				lt++
				i++
			case v > pivot:
				gt--
				t.perm[gt], t.perm[i] = t.perm[i], t.perm[gt]
			default:
				i++
			}
		}
		switch {
		case nth < lt:
			hi = lt
		case nth >= gt:
			lo = gt
		default:
			return
		}
	}
}

// hit is a location and its squared chord from the query.
type hit struct {
	loc int32
	d2  float64
}

func (t *tree) d2(q []float64, p int32) float64 {
	dx, dy, dz := q[0]-t.xyz[3*p], q[1]-t.xyz[3*p+1], q[2]-t.xyz[3*p+2]
	return dx*dx + dy*dy + dz*dz
}

// nearest appends to dst the m locations nearest to q, nearest first.
func (t *tree) nearest(q []float64, m int, dst []hit) []hit {
	var walk func(lo, hi int)
	walk = func(lo, hi int) {
		if lo >= hi {
			return
		}
		mid := (lo + hi) / 2
		p := t.perm[mid]
		h := hit{p, t.d2(q, p)}
		if len(dst) < m || h.d2 < dst[len(dst)-1].d2 {
			if len(dst) == m {
				dst = dst[:m-1]
			}
			i := len(dst)
			dst = append(dst, h)
			for ; i > 0 && dst[i-1].d2 > h.d2; i-- {
				dst[i] = dst[i-1]
			}
			dst[i] = h
		}
		diff := q[t.axis[mid]] - t.coord(p, t.axis[mid])
		near, far := [2]int{lo, mid}, [2]int{mid + 1, hi}
		if diff > 0 {
			near, far = far, near
		}
		walk(near[0], near[1])
		if len(dst) < m || diff*diff <= dst[len(dst)-1].d2 {
			walk(far[0], far[1])
		}
	}
	walk(0, len(t.perm))
	return dst
}

// within appends to dst every location whose squared chord from q is at
// most r2.
func (t *tree) within(q []float64, r2 float64, dst []int32) []int32 {
	var walk func(lo, hi int)
	walk = func(lo, hi int) {
		if lo >= hi {
			return
		}
		mid := (lo + hi) / 2
		p := t.perm[mid]
		if t.d2(q, p) <= r2 {
			dst = append(dst, p)
		}
		diff := q[t.axis[mid]] - t.coord(p, t.axis[mid])
		if diff <= 0 || diff*diff <= r2 {
			walk(lo, mid)
		}
		if diff >= 0 || diff*diff <= r2 {
			walk(mid+1, hi)
		}
	}
	walk(0, len(t.perm))
	return dst
}
