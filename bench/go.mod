module stationdex/bench

go 1.26.0

require (
	golang.org/x/text v0.37.0
	stationdex v0.0.0
)

require (
	github.com/RoaringBitmap/roaring/v2 v2.14.4 // indirect
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	go.etcd.io/bbolt v1.4.3 // indirect
	golang.org/x/sys v0.38.0 // indirect
)

replace stationdex => ../
