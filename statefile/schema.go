package statefile

func (f *File) addSchemaProblems(data []byte) {}
