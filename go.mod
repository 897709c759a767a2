module stationdex

go 1.26

require golang.org/x/text v0.31.0
