package query
import ("testing";"os")
func BenchmarkZZOne(b *testing.B){
 ix,err:=Open(os.Getenv("STATIONDEX_BENCH_INDEX")); if err!=nil{b.Fatal(err)}
 defer ix.Close()
 q:=Query{Q:os.Getenv("ZQ"),Country:os.Getenv("ZC"),Language:os.Getenv("ZL"),Genre:os.Getenv("ZG"),Limit:20}
 if os.Getenv("ZF")!="" { q.Facets=FacetSet{Country:true,Language:true,Genre:true} }
 b.ReportAllocs()
 for b.Loop(){ if _,err:=ix.Search(q);err!=nil{b.Fatal(err)}}
}
