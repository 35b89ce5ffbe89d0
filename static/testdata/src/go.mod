module example.com/seer.data

go 1.26
