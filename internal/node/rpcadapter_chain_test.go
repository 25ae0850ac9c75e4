package node

import "testing"

// TestFeeRatePercentiles uses the cases of Bitcoin Core's
// rpc_getblockstats_calculate_percentiles_by_weight test.
func TestFeeRatePercentiles(t *testing.T) {
	var flat [][2]int64
	for i := 0; i < 100; i++ {
		flat = append(flat, [2]int64{1, 1})
	}
	for i := 0; i < 100; i++ {
		flat = append(flat, [2]int64{2, 1})
	}
	cases := []struct {
		scores [][2]int64
		total  int64
		want   [5]int64
	}{
		{flat, 200, [5]int64{1, 1, 1, 2, 2}},
		{[][2]int64{{1, 9}, {2, 16}, {4, 50}, {5, 10}, {9, 15}}, 100, [5]int64{2, 2, 4, 4, 9}},
		{[][2]int64{{1, 9}, {2, 11}, {2, 5}, {4, 50}, {5, 10}, {9, 15}}, 100, [5]int64{2, 2, 4, 4, 9}},
		{[][2]int64{{1, 100}, {2, 1}, {3, 1}, {3, 1}, {999999, 1}}, 104, [5]int64{1, 1, 1, 1, 1}},
		{nil, 0, [5]int64{}},
	}
	for i, c := range cases {
		if got := feeRatePercentiles(c.scores, c.total); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}

func TestTruncatedMedian(t *testing.T) {
	for _, c := range []struct {
		v    []int64
		want int64
	}{{nil, 0}, {[]int64{5}, 5}, {[]int64{3, 1, 2}, 2}, {[]int64{4, 1, 2, 3}, 2}, {[]int64{1, 4}, 2}} {
		if got := truncatedMedian(c.v); got != c.want {
			t.Errorf("median of %v = %d, want %d", c.v, got, c.want)
		}
	}
}
