"""The console's translations: `jiyi_en.ts` (the source Qt Linguist edits) and the compiled `jiyi_en.qm`."""
