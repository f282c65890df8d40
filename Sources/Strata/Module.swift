// placeholder, replaced by the module's first real file
