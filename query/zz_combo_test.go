package query
import ("testing";"os";"sort";"time")
func BenchmarkZZCombo(b *testing.B){
 ix,err:=Open(os.Getenv("STATIONDEX_BENCH_INDEX")); if err!=nil{b.Fatal(err)}
 defer ix.Close()
 classes,qs:=mixQueries(b)
 cls:=os.Getenv("ZZCLASS"); if cls==""{cls="combo"}
 var cq []Query
 for i,c:=range classes{ if c==cls{cq=append(cq,qs[i])}}
 best:=make([]time.Duration,len(cq))
 reps:=1; if os.Getenv("ZZREPS")!="" { reps=20 }
 for b.Loop(){ for i,q:=range cq{ t0:=time.Now(); for r:=0;r<reps;r++ { if _,err:=ix.Search(q);err!=nil{b.Fatal(err)}}; d:=time.Since(t0)/time.Duration(reps); if best[i]==0||d<best[i]{best[i]=d}}}
 idx:=make([]int,len(cq)); for i:=range idx{idx[i]=i}
 sort.Slice(idx,func(i,j int)bool{return best[idx[i]]<best[idx[j]]})
 n:=len(idx)
 b.Logf("%s n=%d best-of median %v p90 %v p99 %v", cls, n, best[idx[n/2]], best[idx[n*9/10]], best[idx[n*99/100]])
 if os.Getenv("ZZMID")!="" { for _,i:=range idx[n/2-6:n/2+6]{ r,_:=ix.Search(cq[i]); b.Logf("%v total=%d timing=%+v q=%q c=%q l=%q g=%q", best[i], r.Total, r.Timing, cq[i].Q, cq[i].Country, cq[i].Language, cq[i].Genre) } }
 if os.Getenv("ZZSHOW")!="" { for _,i:=range idx[n-12:]{ r,_:=ix.Search(cq[i]); b.Logf("%v total=%d %+v", best[i], r.Total, cq[i]) } }
}
