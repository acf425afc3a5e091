// Placeholder translation unit for a stage whose sources have not landed yet.
