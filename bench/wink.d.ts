// wink-bm25-text-search ships no types; this declares the part the benchmark uses.
declare module "wink-bm25-text-search" {
  interface WinkBm25 {
    defineConfig(config: {
      readonly fldWeights: Record<string, number>
      readonly bm25Params?: { readonly k1?: number; readonly b?: number; readonly k?: number }
    }): boolean
    definePrepTasks(tasks: ReadonlyArray<(input: string) => Array<string>>, field?: string): number
    addDoc(doc: Record<string, string>, id: string): number
    consolidate(precision?: number): boolean
    search(text: string, limit?: number): Array<[string, number]>
  }
  const make: () => WinkBm25
  export = make
}
